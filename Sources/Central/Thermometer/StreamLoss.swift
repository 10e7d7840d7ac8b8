import SensorModel

/// Why a subscribed thermometer stopped delivering.
enum StreamLoss: Equatable {
    case adapterOff(AdapterState)
    case disconnected
    case removed
    case gattReplaced
    case silent

    var reason: String {
        switch self {
        case .adapterOff(.resetting), .adapterOff(.unsupported): "bluetoothd went away"
        case .adapterOff(let state): "adapter \(state.rawValue)"
        case .disconnected: "link lost"
        case .removed: "device removed by BlueZ"
        case .gattReplaced: "GATT service replaced (peripheral app restarted)"
        case .silent: "no data for too long"
        }
    }
}
