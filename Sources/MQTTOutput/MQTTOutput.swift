public import BlectlProtocol
public import ReadingHub
public import SensorModel
import ConcurrencySupport
public import UnixSupport

/// An output of the hub: publishes readings to an MQTT broker, with Home Assistant
/// discovery, and loses none while the broker is away (docs/mqtt.md).
///
/// libmosquitto runs on a thread of its own (an ``EventLoop`` watching its socket), so a
/// broker that is slow, unreachable or still resolving never holds up the hub: the hub's
/// thread only hands each reading over. Readings published while the broker cannot take
/// them come back from the history when it can; the position the broker acknowledged is
/// kept in the state directory across restarts.
///
/// ```swift
/// let mqtt = try MQTTOutput(configuration: configuration, sensors: catalog, log: log)   // exit 78 on error
/// await mqtt.attach(to: hub)
/// …
/// await mqtt.close()
/// ```
public final class MQTTOutput: HubOutput {
    /// What it was configured with.
    public let configuration: Configuration
    private let publisher: Publisher

    /// Checks the configuration, reads the password file and sets up a client once (so a
    /// missing CA file is known now); connects only when attached.
    ///
    /// - Parameter sensors: The sensor families, for what discovery says of each device.
    public init(configuration: Configuration, sensors: SensorCatalog, log: Log) throws(MQTTConfigurationError) {
        try configuration.validate()
        let password = try Credentials.password(configuration)
        if let warning = Credentials.plaintextWarning(configuration) { log.warning(warning) }
        self.configuration = configuration
        publisher = Publisher(configuration: configuration, sensors: sensors, password: password, log: log)
        _ = try MosquittoConnection(
            configuration: configuration, password: password, will: ("-", ""), loop: publisher.loop, events: nil)
    }

    /// `"MQTT"`.
    public var outputName: String { "MQTT" }

    /// Starts publishing the hub's readings and adds the `mqtt` part of `status`.
    public func attach(to hub: Hub) async {
        let publisher = publisher
        let registration = await hub.addListener { event in
            guard let seq = event.seq else { return }
            // Listeners run on the hub's executor: its table answers without a hop (the
            // address passed, not captured: no allocation for every reading).
            let rssi =
                event.type == .reading
                ? event.address.flatMap { address in hub.assumeIsolated(passing: address) { $0.rssi(of: $1) } } : nil
            publisher.hand(Outgoing(event: event, seq: seq, rssi: rssi))
        }
        await hub.addStatusContributor { status in status.setSection(publisher.snapshot.withLock { $0 }) }
        publisher.start(hub: hub, newest: registration.lastSeq)
    }

    /// The output's state, as `status` shows it.
    public var status: MQTTStatus { publisher.snapshot.withLock { $0 } }

    /// Publishes `offline`, waits briefly for outstanding acknowledgements, stores the
    /// acknowledged position and disconnects; returns after at most 1.5 s even when the
    /// network hangs (the MQTT thread is then left to the process's exit).
    public func close() async {
        await close(within: .milliseconds(1500))
    }

    /// ``close()`` with another time bound.
    public func close(within budget: Duration) async {
        let once = Locked<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { continuation in
            once.withLock { $0 = continuation }
            let resume: @Sendable () -> Void = { once.withLock { $0.take() }?.resume() }
            publisher.stop(resume)
            // The bound waits on a loop of its own: the MQTT thread's may be blocked in a
            // connect (name resolution, TCP, TLS), which is what the bound is for.
            Task {
                try? await EventLoop(label: "blectl-mqtt-close").sleep(for: budget)
                resume()
            }
        }
    }
}
