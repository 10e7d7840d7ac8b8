import Central
import MockBlueZ
import SensorModel
import TestSupport
import Testing

@Suite("Link events stay paired through repeated faults")
struct LinkReportTests {
    @Test(
        "many thermometers, the adapter removed and re-added again and again: no connected without a disconnected before it"
    )
    func adapterRemovedRepeatedly() async throws {
        let count = 12
        let addresses = (1...count).map { BluetoothAddress(value: 0xDCA6_3200_0000 + UInt64($0)).description }
        try await MockFixture.with(scenario: MockFixture.scenario(thermometers: count, others: 0)) { fixture in
            var configuration = quickConfiguration()
            configuration.maxConnections = count  // one attempt at a time (the default) queues them
            let (monitor, log) = await startMonitor(fixture, configuration: configuration)
            try await Self.allConnected(addresses, in: log, after: 0)
            // Sessions in every phase when the adapter goes: streaming, re-finding the service
            // after BlueZ removed the GATT objects first, queued for a connection slot.
            for pause in [0, 50, 150, 400, 1000] {
                let mark = log.count
                try await fixture.mock.inject(.removeAdapter("hci0"))
                try await Task.sleep(for: .milliseconds(pause))
                try await fixture.mock.inject(.addAdapter("hci0"))
                try await Self.allConnected(addresses, in: log, after: mark)
            }
            var linkUp: [String: Bool] = [:]
            for event in log.all {
                switch event {
                case .connected(let address, _):
                    #expect(
                        linkUp[address.description] != true,
                        "\(address): connected twice without disconnected: \(Self.history(of: address, in: log))")
                    linkUp[address.description] = true
                case .disconnected(let address, _):
                    linkUp[address.description] = false
                default:
                    break
                }
            }
            await monitor.shutdown()
        }
    }

    /// The link events of `address`, for a failure's message.
    static func history(of address: BluetoothAddress, in log: EventLog) -> [String] {
        log.all.compactMap { event in
            switch event {
            case .connected(address, _): "connected"
            case .disconnected(address, let reason): "disconnected (\(reason))"
            case .peripheralLost(address): "lost"
            default: nil
            }
        }
    }

    /// Waits until every address reports `connected` after the `mark`-th event.
    static func allConnected(_ addresses: [String], in log: EventLog, after mark: Int) async throws {
        for address in addresses {
            _ = try await log.first(after: mark, within: .seconds(60).scaled) { event in
                if case .connected(let connected, _) = event, connected.description == address { true } else { nil }
            }
        }
    }
}
