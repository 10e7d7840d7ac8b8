import DBusCore
import MockBlueZ
import TestSupport
import Testing

/// Several adapters: paths, scenarios, scanning and the RSSI each adapter reports.
enum Radios {
    static let hci1: ObjectPath = "/org/bluez/hci1"
    static let hci2: ObjectPath = "/org/bluez/hci2"
    static let hci0Address = "00:1A:7D:DA:71:10"
    static let hci1Address = "00:1A:7D:DA:71:11"

    /// The device object of the peripheral at `address` under `adapter`.
    static func device(_ adapter: ObjectPath, _ address: String) -> ObjectPath {
        adapter.appending("dev_" + address.replacingOccurrences(of: ":", with: "_"))!
    }

    /// Two thermometers and nothing else, seen by `adapters` adapters, with test timings.
    static func scenario(adapters: Int = 2) -> MockScenario {
        var scenario = MockScenario.standard(others: 0, adapters: adapters)
        scenario.timings = .fast
        return scenario
    }
}

extension MockFixture {
    /// `StartDiscovery` on `adapter` with a `Transport=le` filter: every report then
    /// announces its RSSI.
    func startScan(_ adapter: ObjectPath) async throws {
        try await call(adapter, Iface.adapter, "SetDiscoveryFilter", [.propertyMap([("Transport", .string("le"))])])
        try await call(adapter, Iface.adapter, "StartDiscovery")
    }

    /// The RSSI values announced for `device` after `mark` (``SignalRecorder/rssiValues(_:after:)``).
    func rssiValues(_ device: ObjectPath, after mark: Int = 0) -> [Int16] { signals.rssiValues(device, after: mark) }

    /// Waits until `count` RSSI values of `device` were announced after `mark`; returns them.
    @discardableResult
    func waitForRSSI(_ device: ObjectPath, count: Int, after mark: Int = 0) async throws -> [Int16] {
        try await waitUntil("\(count) RSSI values of \(device)") { rssiValues(device, after: mark).count >= count }
        return Array(rssiValues(device, after: mark).prefix(count))
    }

    /// Waits until `count` `ServiceData` values of `device` were announced; returns them.
    func waitForServiceData(_ device: ObjectPath, count: Int) async throws -> [DBusValue] {
        let values = {
            signals.all.compactMap { signal -> DBusValue? in
                if signal.member == "InterfacesAdded", signal.object == device {
                    return signal.addedInterfaces.first { $0.0 == Iface.device }?.1.first { $0.0 == "ServiceData" }?.1
                }
                return signal.path == device ? signal.changedValue("ServiceData") : nil
            }
        }
        try await waitUntil("\(count) ServiceData values of \(device)") { values().count >= count }
        return Array(values().prefix(count))
    }

    /// Waits until adapter `name` has heard `more` further advertisements of peripheral `index`.
    func waitForReports(adapter name: String, peripheral index: Int, more: Int) async throws {
        let start = await mock.reportsHeard(adapter: name)
        let before = index < start.count ? start[index] : 0
        try await waitUntil("\(more) more reports of peripheral \(index) on \(name)") {
            let now = await mock.reportsHeard(adapter: name)
            return index < now.count && now[index] >= before + more
        }
    }

    /// Calls `InjectFault(name, options)` on the control interface.
    func injectThroughControl(_ name: String, _ options: [(String, DBusValue)]) async throws {
        try await ControlInterfaceTests.control(client, "InjectFault", [.string(name), .propertyMap(options)])
    }
}

/// Waits for `condition` (``eventually(within:_:)``), throwing if it never holds.
func waitUntil(_ what: String, _ condition: () async -> Bool) async throws {
    guard await eventually(condition) else { throw TestSupportError("no \(what) in time") }
}

extension SignalRecorder {
    /// The RSSI values announced for `device` after `mark`, in order (its `InterfacesAdded`,
    /// then its `PropertiesChanged`).
    func rssiValues(_ device: ObjectPath, after mark: Int = 0) -> [Int16] {
        since(mark).compactMap { signal -> Int16? in
            let value: DBusValue?
            if signal.member == "InterfacesAdded", signal.object == device {
                value = signal.addedInterfaces.first { $0.0 == Iface.device }?.1.first { $0.0 == "RSSI" }?.1
            } else if signal.path == device, signal.changedInterface == Iface.device {
                value = signal.changedValue("RSSI")
            } else {
                value = nil
            }
            if case .int16(let rssi)? = value { return rssi }
            return nil
        }
    }
}
