/// The unique names that own the well-known names signal subscriptions name as `sender`.
///
/// A match rule with `sender='org.bluez'` makes the bus route that name's broadcast signals
/// to us, but a signal sent *directly* to our connection reaches us whatever our rules say,
/// with the real sender's unique name in its header. So a signal "from" a well-known name
/// is trusted only when its unique sender owns that name now — learnt from `GetNameOwner`
/// and kept current by `NameOwnerChanged` — and never while the owner is unknown. This is
/// the check GLib added for CVE-2024-34397.
struct SenderOwners {
    private struct Entry {
        /// The owner's unique name; nil while the name has no owner or it is not known yet.
        var owner: String?
        /// Bumped by each `NameOwnerChanged`, so a `GetNameOwner` reply that crossed one is
        /// not applied over it.
        var generation = 0
    }

    private var entries: [String: Entry] = [:]

    /// Whether a subscription with `sender` needs its owner tracked: a well-known name
    /// other than the bus (unique names and the bus itself are checked as they are).
    static func needsTracking(_ sender: String?) -> Bool {
        guard let sender else { return false }
        return !sender.hasPrefix(":") && sender != BusDaemon.name
    }

    /// Whether `name` is tracked already.
    func isTracked(_ name: String) -> Bool { entries[name] != nil }

    /// Starts tracking `name` with its owner unknown; returns the generation a
    /// `GetNameOwner` reply must still match to be applied.
    mutating func track(_ name: String) -> Int {
        if entries[name] == nil { entries[name] = Entry() }
        return entries[name]!.generation
    }

    /// Applies a `GetNameOwner` reply unless a `NameOwnerChanged` came in meanwhile.
    mutating func resolved(_ name: String, owner: String?, generation: Int) {
        guard entries[name]?.generation == generation else { return }
        entries[name]?.owner = owner
    }

    /// Applies a `NameOwnerChanged` for a tracked name.
    mutating func changed(_ change: NameOwnerChange) {
        guard entries[change.name] != nil else { return }
        entries[change.name]?.owner = change.newOwner
        entries[change.name]?.generation += 1
    }

    /// Whether a signal whose header names `sender` may claim to come from `name`.
    func accepts(_ sender: String?, as name: String) -> Bool {
        guard let owner = entries[name]?.owner else { return false }
        return sender == owner
    }
}
