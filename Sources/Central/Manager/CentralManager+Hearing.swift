public import BlueZClient
public import SensorModel

/// What each adapter in use hears of each device (BlueZ keeps one device object per adapter,
/// `/org/bluez/hciN/dev_…`, each with the RSSI that adapter heard it at).
extension CentralManager {
    /// Each device heard in the current discovery, with the adapters that hear it and the
    /// RSSI of each, by address; the adapters in the order they are used.
    ///
    /// Read from the mirror (no D-Bus call), once per `scan` request: nothing is kept per
    /// advertisement, so a machine with one adapter pays nothing for it.
    public func deviceHearings() -> [BluetoothAddress: [DeviceHearing]] {
        var hearings: [BluetoothAddress: [DeviceHearing]] = [:]
        for adapter in discovery.entries.map(\.path) {
            let name = adapter.lastElement
            for (path, rssi) in mirror({ $0.deviceSignals(on: adapter) }) {
                // 127: "not known" in BlueZ's and the HCI's words.
                guard rssi != 127, let address = path.deviceAddress else { continue }
                hearings[address, default: []].append(DeviceHearing(adapter: name, rssi: Int(rssi)))
            }
        }
        return hearings
    }
}

/// One adapter hearing one device.
public struct DeviceHearing: Sendable, Equatable {
    /// The adapter's interface name (`hci1`).
    public var adapter: String
    /// The RSSI it heard the device at, in dBm.
    public var rssi: Int

    /// Creates a hearing.
    public init(adapter: String, rssi: Int) {
        self.adapter = adapter
        self.rssi = rssi
    }
}
