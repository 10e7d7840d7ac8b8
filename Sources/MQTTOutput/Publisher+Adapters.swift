import BlectlProtocol
import ConcurrencySupport

/// The gateway's adapters on `blectl/gateways/<gateway>/adapters` (retained; docs/mqtt.md,
/// "The gateway's adapters"): `status`'s `adapters` and `missing_adapters` with `gateway`.
/// The status topic stays `online`/`offline` (the will, and Home Assistant's connectivity
/// sensor read it as a word).
///
/// Read from `status` on connecting and then every ``MQTTOutput/Configuration/adaptersPeriod``
/// while connected; published when it differs from what this connection published last.
extension Publisher {
    func adaptersDue() {
        adaptersTimer?.cancel()
        adaptersTimer = nil
        guard state == .connected, !stopped, let hub else { return }
        Task {
            let status = await hub.status()
            self.loop.execute { self.adaptersArrived(status) }
        }
    }

    private func adaptersArrived(_ status: StatusResult) {
        guard state == .connected, !stopped, let connection else { return }
        adaptersTimer = loop.schedule(after: configuration.adaptersPeriod) { [unowned self] in adaptersDue() }
        // No central (no Bluetooth side): nothing to say.
        guard let adapters = status.section([AdapterStatus].self) else { return }
        let payload = Payload.bytes(
            AdaptersPayload(
                gateway: configuration.gateway, adapters: adapters,
                missing: status.section(MissingAdapters.self)?.adapters))
        guard payload != adaptersPublished else { return }
        switch connection.publish(
            topic: topics.gatewayAdapters, payload: payload, qos: configuration.qos, retain: true)
        {
        case .success: adaptersPublished = payload
        case .failure(let failure):
            log.warning("MQTT: cannot publish on \(topics.gatewayAdapters): \(failure.description)")
        }
    }
}

/// `{"adapters":[…],"gateway":"kitchen","missing_adapters":["00:1A:7D:DA:71:99"]}`: each
/// adapter as `status` shows it (`interface`, `adapter_address`, `alias`, `powered`,
/// `discovering`, `devices_heard`, `devices_owned`, `connected`, `links`, `link_limit`, `primary`,
/// `recovery_steps`).
struct AdaptersPayload: Encodable {
    let gateway: String
    let adapters: [AdapterStatus]
    let missing: [String]?

    private enum CodingKeys: String, CodingKey {
        case gateway, adapters
        case missing = "missing_adapters"
    }
}
