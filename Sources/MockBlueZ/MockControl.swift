import DBusCore

/// The control interface `org.blectl.Mock1` at `/org/blectl/Mock`, served under the name
/// `org.blectl.Mock` on its own connection so that nothing of it shows in org.bluez's tree.
enum MockControl {
    static let busName = "org.blectl.Mock"
    static let path: ObjectPath = "/org/blectl/Mock"
    static let interfaceName = "org.blectl.Mock1"

    static func interface(for mock: MockBluetoothd) -> ExportedInterface {
        ExportedInterface(
            name: interfaceName,
            methods: [
                ExportedMethod("InjectFault", in: "sa{sv}") { [weak mock] call in
                    let fault = try fault(named: try call.argument(0), options: try call.argument(1))
                    try await mapped { try await mock?.inject(fault) }
                    return []
                },
                ExportedMethod("ClearFaults") { [weak mock] _ in
                    await mock?.clearFaults()
                    return []
                },
                ExportedMethod("SetTemperature", in: "sd") { [weak mock] call in
                    let (address, celsius) = (
                        try call.argument(0, as: String.self), try call.argument(1, as: Double.self)
                    )
                    try await mapped { try await mock?.setTemperature(celsius, address: address) }
                    return []
                },
                ExportedMethod("SetTemperaturePattern", in: "ss") { [weak mock] call in
                    let address = try call.argument(0, as: String.self)
                    guard let pattern = MockTemperaturePattern(rawValue: try call.argument(1)) else {
                        throw invalid("pattern must be one of \(MockTemperaturePattern.allCases.map(\.rawValue))")
                    }
                    try await mapped { try await mock?.setPattern(pattern, address: address.isEmpty ? nil : address) }
                    return []
                },
                ExportedMethod("SetNotifyInterval", in: "t") { [weak mock] call in
                    let microseconds = try call.argument(0, as: UInt64.self)
                    guard microseconds >= 1000 else { throw invalid("the interval is at least 1000 µs (1 ms)") }
                    await mock?.setNotifyInterval(.microseconds(Int64(clamping: microseconds)))
                    return []
                },
                ExportedMethod("Burst", in: "su", out: "u") { [weak mock] call in
                    let (address, count) = (
                        try call.argument(0, as: String.self), try call.argument(1, as: UInt32.self)
                    )
                    let sent = try await mapped { try await mock?.burst(address: address, count: Int(count)) ?? 0 }
                    return [.uint32(UInt32(sent))]
                },
                ExportedMethod("SensorMemory", in: "s", out: "a{sv}") { [weak mock] call in
                    let address = try call.argument(0, as: String.self)
                    guard let mock else { return [.propertyMap([])] }
                    let status = try await mapped { try await mock.sensorMemory(address: address) }
                    return [.propertyMap(describe(status))]
                },
                ExportedMethod("ListDevices", out: "aa{sv}") { [weak mock] _ in
                    let devices = await mock?.devices() ?? []
                    return [.array(element: "a{sv}", devices.map { .propertyMap(describe($0)) })]
                },
                ExportedMethod("Status", out: "a{sv}") { [weak mock] _ in
                    guard let mock else { return [.propertyMap([])] }
                    let interval = await mock.notifyInterval
                    let (seconds, attoseconds) = interval.components
                    return [
                        .propertyMap([
                            ("Running", .boolean(await mock.isBluetoothdRunning)),
                            ("UniqueName", .string(await mock.bluetoothdUniqueName ?? "")),
                            (
                                "NotifyIntervalMicroseconds",
                                .uint64(UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000))
                            ),
                        ])
                    ]
                },
            ])
    }

    /// A device as `ListDevices` describes it.
    static func describe(_ device: MockDeviceInfo) -> [(String, DBusValue)] {
        var entries: [(String, DBusValue)] = [
            ("Address", .string(device.address)), ("AddressType", .string(device.addressType)),
            ("Name", .string(device.advertisedName ?? "")), ("Kind", .string(device.kind)),
            ("Paths", .array(element: "o", device.objectPaths.compactMap { ObjectPath($0).map(DBusValue.objectPath) })),
            ("Connected", .boolean(device.connected)), ("Notifying", .boolean(device.notifying)),
        ]
        if let unit = device.unit { entries.append(("Unit", .string(unit.rawValue))) }
        if let celsius = device.celsius { entries.append(("Celsius", .double(celsius))) }
        if let pattern = device.pattern { entries.append(("Pattern", .string(pattern.rawValue))) }
        if let uuid = device.serviceUUID { entries.append(("ServiceUUID", .string(uuid))) }
        return entries
    }

    /// A memory sensor as `SensorMemory` describes it.
    static func describe(_ status: MockSensorMemoryStatus) -> [(String, DBusValue)] {
        var entries: [(String, DBusValue)] = [
            ("SensorTime", .uint32(status.sensorTime)), ("LastSetTime", .uint32(status.lastSetTime)),
            ("Records", .uint32(UInt32(clamping: status.records))),
        ]
        if let newest = status.newestRecordTime { entries.append(("NewestRecordTime", .uint32(newest))) }
        if let oldest = status.oldestRecordTime { entries.append(("OldestRecordTime", .uint32(oldest))) }
        return entries
    }

    /// The fault that `InjectFault(name, options)` asks for.
    static func fault(named name: String, options: [String: DBusValue]) throws -> MockFault {
        let reader = Options(options)
        switch name {
        case "power-off": return .powerOff(adapter: try reader.string("adapter") ?? "hci0")
        case "power-on": return .powerOn(adapter: try reader.string("adapter") ?? "hci0")
        case "remove-adapter": return .removeAdapter(try reader.string("adapter") ?? "hci0")
        case "add-adapter":
            return .addAdapter(try reader.string("adapter") ?? "hci0", address: try reader.string("address"))
        case "disconnect":
            return .remoteDisconnect(address: try reader.required("address"), adapter: try reader.string("adapter"))
        case "gatt-restart": return .gattRestart(address: try reader.required("address"))
        case "fail-connect":
            let errorName = try reader.string("error") ?? MockConnectFailure.abortedByLocal.rawValue
            guard let error = MockConnectFailure(rawValue: errorName) else {
                throw invalid("error must be one of \(MockConnectFailure.allCases.map(\.rawValue))")
            }
            return .failConnect(times: try reader.times(), error: error, address: try reader.string("address"))
        case "stop-discovery-in-progress": return .stopDiscoveryInProgress(times: try reader.times())
        case "start-discovery-busy":
            return .startDiscoveryBusy(times: try reader.times(), adapter: try reader.string("adapter"))
        case "set-rssi":
            return .setSignal(
                try reader.signal(), adapter: try reader.string("adapter") ?? "hci0",
                address: try reader.string("address"))
        case "rssi-flap": return try rssiFlap(reader)
        case "connect-race": return .connectRace(times: try reader.times(), address: try reader.string("address"))
        case "services-never-resolve":
            return .servicesNeverResolve(times: try reader.times(), address: try reader.string("address"))
        case "slow-replies":
            guard let delay = try reader.integer("delay_ms") else { throw invalid("slow-replies needs delay_ms") }
            return .slowReplies(
                delay: .milliseconds(delay), times: try reader.count(default: nil),
                methods: Set(try reader.strings("methods")))
        case "malformed":
            guard let kind = MockMalformedValue(rawValue: try reader.required("kind")) else {
                throw invalid("kind must be one of \(MockMalformedValue.allCases.map(\.rawValue))")
            }
            return .malformedValues(kind, times: try reader.count(default: 1), address: try reader.string("address"))
        case "out-of-range":
            return .outOfRange(times: try reader.count(default: nil), address: try reader.string("address"))
        case "bluetoothd-stop":
            return .stopBluetoothd(restartAfter: try reader.integer("restart_ms").map { .milliseconds($0) })
        case "bluetoothd-crash":
            return .crashBluetoothd(restartAfter: try reader.integer("restart_ms").map { .milliseconds($0) })
        case "bluetoothd-start": return .startBluetoothd
        case "silence":
            let cureName = try reader.string("cure") ?? MockSilenceCure.restartDiscovery.rawValue
            guard let cure = MockSilenceCure(rawValue: cureName) else {
                throw invalid("cure must be one of \(MockSilenceCure.allCases.map(\.rawValue))")
            }
            return .silence(adapter: try reader.string("adapter") ?? "hci0", cure: cure)
        case "controller-reset": return .controllerReset(adapter: try reader.string("adapter") ?? "hci0")
        case "memory-disconnect":
            let records = try reader.integer("records") ?? 1
            return .sensorMemory(
                .disconnectDuringDownload(afterRecords: records), address: try reader.required("address"))
        case "memory-corrupt":
            let record = try reader.integer("record") ?? 1
            return .sensorMemory(.corruptRecord(number: record), address: try reader.required("address"))
        case "clock-refuse":
            return .sensorMemory(.refuseClockWrite(times: try reader.times()), address: try reader.required("address"))
        case "counter-wrap": return .sensorMemory(.counterWrap, address: try reader.required("address"))
        case "sensor-reset": return .sensorMemory(.reset, address: try reader.required("address"))
        default:
            throw DBusError(name: "org.blectl.Mock.Error.UnknownFault", message: "no fault named '\(name)'")
        }
    }

    /// `rssi-flap {address, adapters = [hci0, hci1], strong = -50, weak = -90}`.
    private static func rssiFlap(_ reader: Options) throws -> MockFault {
        let adapters = try reader.strings("adapters")
        guard adapters.isEmpty || adapters.count == 2 else { throw invalid("adapters names two adapters") }
        return .flapSignal(
            address: try reader.required("address"), strongOn: adapters.first ?? "hci0",
            weakOn: adapters.last ?? "hci1", strong: try reader.rssi("strong") ?? -50,
            weak: try reader.rssi("weak") ?? -90)
    }

    /// Reads fault options leniently: any integer type for numbers (clients differ).
    private struct Options {
        let values: [String: DBusValue]
        init(_ values: [String: DBusValue]) { self.values = values }

        func string(_ key: String) throws -> String? {
            guard let value = values[key] else { return nil }
            guard case .string(let text) = value.unwrappingVariants else { throw invalid("\(key) must be a string") }
            return text
        }

        func required(_ key: String) throws -> String {
            guard let text = try string(key) else { throw invalid("this fault needs \(key)") }
            return text
        }

        func strings(_ key: String) throws -> [String] {
            guard let value = values[key] else { return [] }
            guard let list = try? value.unwrappingVariants.decode([String].self) else {
                throw invalid("\(key) must be 'as'")
            }
            return list
        }

        func integer(_ key: String) throws -> Int? {
            guard let value = values[key] else { return nil }
            switch value.unwrappingVariants {
            case .byte(let v): return Int(v)
            case .int16(let v): return Int(v)
            case .uint16(let v): return Int(v)
            case .int32(let v): return Int(v)
            case .uint32(let v): return Int(v)
            case .int64(let v): return Int(v)
            case .uint64(let v): return Int(clamping: v)
            default: throw invalid("\(key) must be an integer")
            }
        }

        /// An RSSI in dBm, -127…20.
        func rssi(_ key: String) throws -> Int16? {
            guard let value = try integer(key) else { return nil }
            guard (-127...20).contains(value) else { throw invalid("\(key) is an RSSI from -127 to 20 dBm") }
            return Int16(value)
        }

        /// `set-rssi`'s signal: `rssi` in dBm, `offset` in dB from the peripheral's own
        /// value, `rssi` "default" (offset 0), or out of range (`rssi` "none", or neither).
        func signal() throws -> MockSignal {
            if case .string(let word)? = values["rssi"]?.unwrappingVariants {
                guard values["offset"] == nil else { throw invalid("give rssi or offset, not both") }
                switch word {
                case "none": return .outOfRange
                case "default": return .offset(0)
                default: throw invalid("rssi is a number of dBm, \"none\" or \"default\"")
                }
            }
            if let offset = try integer("offset") {
                guard values["rssi"] == nil else { throw invalid("give rssi or offset, not both") }
                guard (-147...147).contains(offset) else { throw invalid("offset is from -147 to 147 dB") }
                return .offset(Int16(offset))
            }
            return try rssi("rssi").map(MockSignal.fixed) ?? .outOfRange
        }

        /// `count`: how many times (`fallback` when absent); 0 means until cleared (nil).
        func count(default fallback: Int?) throws -> Int? {
            guard let count = try integer("count") else { return fallback }
            return count <= 0 ? nil : count
        }

        /// `count` for faults that strike a number of times: 1 by default, 0 for ever.
        func times() throws -> Int { try count(default: 1) ?? Int.max }
    }

    private static func invalid(_ message: String) -> DBusError {
        DBusError(name: DBusError.Name.invalidArgs, message: message)
    }

    /// Runs `body`, turning a ``MockError`` into the D-Bus error it names.
    private static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as MockError {
            throw DBusError(name: error.name, message: error.message)
        }
    }
}
