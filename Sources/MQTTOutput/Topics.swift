/// The topic names of one gateway (docs/mqtt.md).
import SensorModel
struct Topics: Sendable {
    let prefix: String
    let discoveryPrefix: String
    let gateway: String

    /// `blectl/gateways/<gateway>/status`: `online` / `offline`, retained; `offline` is the will.
    var gatewayStatus: String { "\(prefix)/gateways/\(gateway)/status" }

    /// `blectl/gateways/<gateway>/adapters`: the gateway's adapters (JSON), retained.
    var gatewayAdapters: String { "\(prefix)/gateways/\(gateway)/adapters" }

    /// `blectl/<device_id>/state`: one JSON object per reading.
    func state(_ deviceID: String) -> String { "\(prefix)/\(deviceID)/state" }

    /// `blectl/<device_id>/probe<N>/state`: one JSON object per reading of probe `probe`, on a
    /// device with several (its entity's own state: the probes' readings do not take turns).
    func state(_ deviceID: String, probe: UInt8) -> String { "\(prefix)/\(deviceID)/probe\(probe)/state" }

    /// `blectl/<device_id>/memory`: one JSON object per reading read back from the device's
    /// memory (never its state: Home Assistant's state stays the newest live value).
    func memory(_ deviceID: String) -> String { "\(prefix)/\(deviceID)/memory" }

    /// `blectl/<device_id>/error`: one JSON object per reading error.
    func error(_ deviceID: String) -> String { "\(prefix)/\(deviceID)/error" }

    /// `blectl/<device_id>/reception`: an advertising sensor's received and missed counts.
    func reception(_ deviceID: String) -> String { "\(prefix)/\(deviceID)/reception" }

    /// `homeassistant/status`: Home Assistant's own `online` / `offline`.
    var homeAssistantStatus: String { "\(discoveryPrefix)/status" }

    /// Whether Home Assistant discovery is on.
    var discovers: Bool { !discoveryPrefix.isEmpty }

    /// `homeassistant/<component>/<node>/<object>/config`.
    func discovery(component: String, node: String, object: String) -> String {
        "\(discoveryPrefix)/\(component)/\(node)/\(object)/config"
    }

    /// A device's id in topics: its address in lower case without colons (`dca632000001`).
    static func deviceID(_ address: BluetoothAddress) -> String {
        // Every reading's topic: 12 characters fit a small string, so this allocates nothing.
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 12) { id in
            digits.withUTF8Buffer { hex in
                for index in 0..<12 {
                    id[index] = hex[Int(truncatingIfNeeded: address.value >> (44 - 4 * index)) & 0xF]
                }
            }
            return 12
        }
    }

    /// `name` with every character Home Assistant refuses in an id (all but letters,
    /// digits, `_` and `-`) made `_`.
    static func identifier(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }
}
