import BlectlProtocol
import SensorModel

extension Hub {
    /// Records the time the adapter was down as a gap once it is up again (when it lasted
    /// ``Limits/shortestAdapterGap`` or more).
    func noteAdapter(_ state: AdapterState, at time: Timestamp) {
        switch state {
        case .poweredOn:
            adapterUpSince = time
            guard let since = adapterDownSince else { return }
            adapterDownSince = nil
            guard Self.span(from: since, to: time) >= limits.shortestAdapterGap else { return }
            historySource?.record(gap: HistoryGap(address: nil, from: since, until: time, reason: .adapterDown))
        case .poweredOff, .resetting, .unsupported, .unauthorized:
            if adapterDownSince == nil { adapterDownSince = time }
        case .unknown:
            break
        }
    }

    /// Records a device's silence between two readings as a "not heard" gap when it lasted
    /// longer than ``Limits/gapAfter`` while the adapter was up.
    func noteSilence(of address: BluetoothAddress, from previous: Timestamp, until time: Timestamp) {
        guard Self.span(from: previous, to: time) > limits.gapAfter, previous >= adapterUpSince ?? previous else {
            return
        }
        historySource?.record(gap: HistoryGap(address: address, from: previous, until: time, reason: .notHeard))
    }

    private static func span(from start: Timestamp, to end: Timestamp) -> Duration {
        .milliseconds(end.millisecondsSince1970 - start.millisecondsSince1970)
    }
}
