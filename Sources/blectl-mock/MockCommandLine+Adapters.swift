import MockBlueZ
import UnixSupport

/// The options that shape the adapters (`--adapter-rssi`, `--rssi-flap`,
/// `--duplicate-adapter-address`): their ranges, a peripheral flapping between two, and two
/// adapters with one address.
extension MockCommandLine {
    /// Applies the adapter options to `scenario` (after its peripherals are made).
    static func applyAdapterOptions(_ parsed: ParsedArguments, to scenario: inout MockScenario) throws(UsageError) {
        if parsed.flag("duplicate-adapter-address") {
            guard scenario.adapters.count >= 2 else {
                throw UsageError("--duplicate-adapter-address needs --adapters 2")
            }
            scenario.allowsDuplicateAdapterAddresses = true
            scenario.adapters[scenario.adapters.count - 1].address = scenario.adapters[0].address
        }
        for text in parsed.values("adapter-rssi") {
            let (adapter, device, signal) = try adapterRSSI(text)
            do { try scenario.setSignal(signal, adapter: adapter, peripheral: device) } catch {
                throw UsageError("--adapter-rssi \(text): \(error.message)")
            }
        }
        for address in parsed.values("rssi-flap") {
            guard scenario.adapters.count >= 2 else { throw UsageError("--rssi-flap needs --adapters 2") }
            do { try scenario.flapSignal(peripheral: address) } catch {
                throw UsageError("--rssi-flap \(address): \(error.message)")
            }
        }
    }

    /// Parses `ADAPTER[/DEVICE]=VALUE`.
    static func adapterRSSI(_ text: String) throws(UsageError) -> (String, String?, MockSignal) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else {
            throw UsageError("--adapter-rssi needs ADAPTER[/DEVICE]=VALUE, not '\(text)'")
        }
        let target = parts[0].split(separator: "/", maxSplits: 1).map(String.init)
        guard let signal = signal(String(parts[1])) else {
            throw UsageError("--adapter-rssi takes -80 (dBm), -15dB (an offset) or none, not '\(parts[1])'")
        }
        return (target[0], target.count > 1 ? target[1] : nil, signal)
    }

    /// `-80` or `-80dBm` (an RSSI), `-15dB`/`+5dB` (an offset from the peripheral's own), `none`.
    private static func signal(_ text: String) -> MockSignal? {
        if text == "none" { return .outOfRange }
        if text.hasSuffix("dB"), !text.hasSuffix("dBm") {
            guard let offset = Int16(text.dropLast(2)), (-147...147).contains(offset) else { return nil }
            return .offset(offset)
        }
        let number = text.hasSuffix("dBm") ? String(text.dropLast(3)) : text
        guard let rssi = Int16(number), (-127...20).contains(rssi) else { return nil }
        return .fixed(rssi)
    }
}
