/// The replay rule for one device's encrypted advertisements: which counters it may send next.
///
/// An encrypted BTHome packet carries a 32-bit counter that the device raises for every new
/// packet, inside the authenticated data, so only the device can make a packet with a new
/// counter; anyone can record a packet and send it again later. The guard remembers the last
/// counter accepted and judges each authentic packet:
///
/// - The first one is accepted: there is nothing to compare with (the guard starts empty
///   when the daemon starts).
/// - A counter above the last accepted one is accepted.
/// - The last accepted counter again is the same packet heard again (devices repeat each
///   advertisement): ``Verdict/repeated``, decoded again; the caller's de-duplication by
///   counter drops it.
/// - A battery change restarts the device's counter at zero. A counter below
///   ``resetLimit`` when the last accepted one is at or above it is taken as that restart:
///   accepted, ``Verdict/reset(previous:)``. (A device restarted before reaching
///   ``resetLimit`` is accepted again once its counter passes the old value.)
/// - Anything else is ``Verdict/replayed(last:)`` and dropped.
///
/// What remains open, as in every BTHome receiver that allows restarts (Home Assistant's,
/// Tasmota's): a BTHome device reuses its counters after a battery change, so packets
/// recorded before a restart authenticate again, and someone who recorded them can replay
/// them as a "restart" or, after a real one, as newer packets. They are old but authentic
/// readings of the same device, and the device's own next packets displace them.
public struct ReplayGuard: Sendable, Equatable {
    /// Counters below this, after counters at or above it, are a restart after a battery change.
    public static let resetLimit: UInt32 = 100

    /// The counter of the last packet accepted; `nil` before the first.
    public private(set) var lastAccepted: UInt32?

    /// What the guard made of a counter.
    public enum Verdict: Sendable, Equatable {
        /// New: decode it.
        case accepted
        /// The last accepted packet heard again: decode it; the reading repeats.
        case repeated
        /// The device restarted its counter (a battery change): decode it.
        case reset(previous: UInt32)
        /// Older than the last accepted packet: drop it.
        case replayed(last: UInt32)
    }

    /// A guard that has accepted nothing yet.
    public init() {}

    /// Judges the counter of an authentic packet, and remembers it unless it is dropped.
    public mutating func admit(_ counter: UInt32) -> Verdict {
        guard let last = lastAccepted else {
            lastAccepted = counter
            return .accepted
        }
        if counter == last { return .repeated }
        if counter > last {
            lastAccepted = counter
            return .accepted
        }
        if counter < Self.resetLimit, last >= Self.resetLimit {
            lastAccepted = counter
            return .reset(previous: last)
        }
        return .replayed(last: last)
    }
}
