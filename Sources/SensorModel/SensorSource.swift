/// Something that reports ``SensorEvent``s: the GATT thermometer monitor, the advertisement
/// monitor, the host's CPU.
///
/// A source is built with the function it reports through and knows nothing of the hub;
/// the daemon starts every source in one place and stops them in reverse order.
public protocol SensorSource: Sendable {
    /// What the source is, for the log (`"gatt"`, `"advertisements"`, `"host CPU"`).
    var sourceName: String { get }
    /// Starts reporting: scanning, connecting, listening or reading on a timer.
    func start() async
    /// Stops reporting and lets go of what the source holds (links, subscriptions, timers);
    /// returns within the daemon's shutdown budget, a few seconds.
    func shutdown() async
}
