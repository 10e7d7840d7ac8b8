public import SensorModel
public import BlueZClient

/// Which adapter the central uses.
public enum AdapterSelection: Sendable, Hashable {
    /// The first powered adapter with the central role, else the first with it.
    case automatic
    /// The adapter with this interface name, such as `hci1`.
    case name(String)
    /// The adapter with this address.
    case address(BluetoothAddress)

    /// Parses `hci0`, an address, or an empty string (automatic).
    public init?(_ text: String) {
        if text.isEmpty || text == "auto" {
            self = .automatic
        } else if let address = BluetoothAddress(text) {
            self = .address(address)
        } else if text.hasPrefix("hci"), Int(text.dropFirst(3)) != nil {
            self = .name(text)
        } else {
            return nil
        }
    }
}

/// How the central resets a controller below bluetoothd (the scan watchdog's last step).
public enum ControllerResetMethod: Sendable {
    /// libbluetooth's HCI calls (`HCIDEVDOWN`, `HCIDEVUP`): needs `CAP_NET_ADMIN`.
    case hci
    /// The mock adapter's control interface (`blectld --mock`): the machine's own
    /// controllers are never touched.
    case mockAdapter
    /// Another resetter (tests stub the libbluetooth boundary with one).
    case custom(any ControllerResetting)
}

/// How the central behaves.
public struct CentralOptions: Sendable {
    /// Which adapter to use, when ``adapters`` is nil: one adapter (the setting `adapter`).
    public var adapter: AdapterSelection
    /// Which adapters to use (the setting `adapters`); nil: the one ``adapter`` names.
    public var adapters: AdapterSet?
    /// Whether to switch the adapter on when it is off.
    public var powerOnAdapter: Bool
    /// How ``CentralManager/resetController()`` resets the controller.
    public var controllerReset: ControllerResetMethod

    /// Creates options.
    public init(
        adapter: AdapterSelection = .automatic, adapters: AdapterSet? = nil, powerOnAdapter: Bool = false,
        controllerReset: ControllerResetMethod = .hci
    ) {
        self.adapter = adapter
        self.adapters = adapters
        self.powerOnAdapter = powerOnAdapter
        self.controllerReset = controllerReset
    }
}
