import Glibc

/// What each user holds of the socket server — clients connected, requests being
/// answered — against the per-user limits, so one user cannot take every slot.
///
/// Users are told apart by the uid the kernel recorded when they connected
/// (`SO_PEERCRED`); a user holding nothing has no entry.
struct UserQuotas {
    /// Whether a slot was granted; a refusal says whether the user was refused before
    /// without being granted anything since (so a flood is logged once, not per attempt).
    enum Decision: Equatable {
        case granted
        case refused
        case refusedAgain
    }

    private struct Usage {
        var clients = 0
        var pendingRequests = 0
        var refusedSinceGrant = false

        var isEmpty: Bool { clients == 0 && pendingRequests == 0 }
    }

    let maxClients: Int
    let maxPendingRequests: Int
    private var users: [uid_t: Usage] = [:]

    init(maxClients: Int, maxPendingRequests: Int) {
        self.maxClients = maxClients
        self.maxPendingRequests = maxPendingRequests
    }

    /// The clients `uid` has connected.
    func clients(of uid: uid_t) -> Int { users[uid]?.clients ?? 0 }

    /// The requests of `uid` being answered.
    func pendingRequests(of uid: uid_t) -> Int { users[uid]?.pendingRequests ?? 0 }

    /// Takes a client slot for `uid` if it has one left.
    mutating func addClient(_ uid: uid_t) -> Decision {
        take(uid, within: maxClients, \.clients)
    }

    /// Gives back a client slot taken with ``addClient(_:)``.
    mutating func removeClient(_ uid: uid_t) {
        give(uid, \.clients)
    }

    /// Takes a request slot for `uid` if it has one left.
    mutating func beginRequest(_ uid: uid_t) -> Decision {
        take(uid, within: maxPendingRequests, \.pendingRequests)
    }

    /// Gives back a request slot taken with ``beginRequest(_:)``, once its work has ended.
    mutating func endRequest(_ uid: uid_t) {
        give(uid, \.pendingRequests)
    }

    private mutating func take(_ uid: uid_t, within limit: Int, _ count: WritableKeyPath<Usage, Int>) -> Decision {
        var usage = users[uid] ?? Usage()
        defer { users[uid] = usage.isEmpty ? nil : usage }
        guard usage[keyPath: count] < limit else {
            let decision = usage.refusedSinceGrant ? Decision.refusedAgain : .refused
            usage.refusedSinceGrant = true
            return decision
        }
        usage[keyPath: count] += 1
        usage.refusedSinceGrant = false
        return .granted
    }

    private mutating func give(_ uid: uid_t, _ count: WritableKeyPath<Usage, Int>) {
        guard var usage = users[uid], usage[keyPath: count] > 0 else {
            return assertionFailure("uid \(uid) gave back a slot it did not hold")
        }
        usage[keyPath: count] -= 1
        users[uid] = usage.isEmpty ? nil : usage
    }
}
