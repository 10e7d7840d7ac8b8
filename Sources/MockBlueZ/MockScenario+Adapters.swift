/// The scenario's adapters: their identity (the address) and what each hears.
extension MockScenario {
    /// The address of `adapter`: itself when it is an address, else that of the scenario's
    /// adapter of that name (`hci1`).
    public func adapterAddress(_ adapter: String) throws(MockError) -> String {
        if MockAdapterSpec.isAddress(adapter) { return adapter.uppercased() }
        guard let spec = adapters.first(where: { $0.name == adapter }) else { throw .unknownAdapter(adapter) }
        return spec.address
    }

    /// Sets how `adapter` (a name or an address) hears the peripheral at `peripheral`, or
    /// every peripheral when it is nil.
    public mutating func setSignal(_ signal: MockSignal, adapter: String, peripheral: String? = nil)
        throws(MockError)
    {
        let address = try adapterAddress(adapter)
        if let peripheral, !peripherals.contains(where: { $0.address == peripheral.uppercased() }) {
            throw .unknownDevice(peripheral)
        }
        ranges.set(signal, adapter: address, peripheral: peripheral)
    }

    /// Makes the peripheral at `peripheral` jump between two adapters at every
    /// advertisement: `strong` on `strongOn` and `weak` on `weakOn`, then the reverse.
    public mutating func flapSignal(
        peripheral: String, strongOn: String = "hci0", weakOn: String = "hci1", strong: Int16 = -50,
        weak: Int16 = -90
    ) throws(MockError) {
        try setSignal(.alternating(first: strong, second: weak), adapter: strongOn, peripheral: peripheral)
        try setSignal(.alternating(first: weak, second: strong), adapter: weakOn, peripheral: peripheral)
    }

    /// Refuses two adapters of one name, and of one address unless
    /// ``allowsDuplicateAdapterAddresses`` asks for that bad input.
    func validateAdapters() throws(MockError) {
        var names: Set<String> = []
        var addresses: [String: String] = [:]
        for spec in adapters {
            guard names.insert(spec.name).inserted else { throw .adapterExists("two adapters are named \(spec.name)") }
            if let other = addresses[spec.address.uppercased()], !allowsDuplicateAdapterAddresses {
                throw .adapterExists("\(spec.name) has \(other)'s address \(spec.address)")
            }
            addresses[spec.address.uppercased()] = spec.name
        }
    }
}

extension MockAdapterSpec {
    /// Whether `text` is an address, `XX:XX:XX:XX:XX:XX` in either case.
    static func isAddress(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 17 else { return false }
        return bytes.indices.allSatisfy { index in
            index % 3 == 2 ? bytes[index] == UInt8(ascii: ":") : Character(Unicode.Scalar(bytes[index])).isHexDigit
        }
    }
}
