import BlectlProtocol
import CSQLite
import ConcurrencySupport
import UnixSupport

/// The store's state and work, confined to the store's own thread (an ``EventLoop``).
///
/// It takes readings from the ``Inbox`` once per commit interval, commits them in one
/// transaction, and keeps them in memory while the disk cannot be written. It owns the
/// database connection, the lock file, the commit and pruning timers.
final class HistoryWriter: @unchecked Sendable {
    // @unchecked Sendable: every method runs on `loop`'s thread (the store hops there for
    // each call, and the timers fire there), so no state is touched by two threads.
    let files: DatabaseFiles
    let configuration: HistoryStore.Configuration
    let log: Log
    let loop: EventLoop
    let inbox: Inbox
    let migrations: [Migration]
    let upgradeProgress: HistoryStore.UpgradeProgress?

    var lock: DatabaseLock?
    var database: StoreDatabase?
    /// Readings taken from the inbox and not yet committed, in `seq` order.
    var pending: [Event] = []
    /// Gaps recorded and not yet committed.
    var pendingGaps: [HistoryGap] = []
    /// The last moment a database showed the gateway running before this store opened it
    /// (``StoreDatabase/Contents/lastAlive``): the start of a "gateway stopped" gap.
    var previousRunEnded: Timestamp?
    /// The inbox's next array, swapped in at each take (no allocation per commit).
    var spare: [Event] = []
    /// Why the store is degraded; nil when it writes as it should.
    var problem: String?
    var commitTimer: LoopTimer?
    var pruneTimer: LoopTimer?

    /// The highest `seq` taken from the inbox (or known at open): the hub has handed out
    /// every number up to it.
    var highestSeen: UInt64 = 0
    /// The highest `seq` committed, in this file or an earlier one.
    var committedSeq: UInt64 = 0
    /// The recorded sequence-number floor (lock file and `meta`).
    var seqFloor: UInt64 = 0
    /// The highest `seq` known lost (pruned, dropped, or in a damaged file).
    var forgottenThrough: UInt64 = 0
    /// The latest time of a lost reading, in milliseconds.
    var forgottenTime: Int64?
    /// `forgotten_through` changed in a way `meta` must keep (drops, a damaged file).
    var forgottenNeedsWrite = false
    /// Rows in the database.
    var rows = 0
    /// Readings dropped since start (beyond ``HistoryStore/Configuration/pendingLimit``).
    var dropped: UInt64 = 0
    /// Transactions committed and pruning steps run, for tests and the benchmark.
    var commits = 0
    var pruneSteps = 0
    var closed = false
    /// Drops were logged in this degraded spell (one warning, not one per commit interval).
    var dropsLogged = false
    /// A rebuild of an old schema failed: the next try waits until then (each try copies the
    /// whole file, too much to repeat every commit interval on a full disk).
    var rebuildNotBefore: ContinuousClock.Instant?

    init(
        files: DatabaseFiles, configuration: HistoryStore.Configuration, log: Log, loop: EventLoop,
        inbox: Inbox, migrations: [Migration], upgradeProgress: HistoryStore.UpgradeProgress? = nil
    ) {
        self.files = files
        self.configuration = configuration
        self.log = log
        self.loop = loop
        self.inbox = inbox
        self.migrations = migrations
        self.upgradeProgress = upgradeProgress
    }

    /// How far beyond the highest number seen the floor is kept: after a crash the hub
    /// continues above it, past every number it may have handed out but not committed.
    var floorHeadroom: UInt64 { UInt64(max(1_000, configuration.pendingLimit)) }

    // MARK: Opening

    /// Takes the lock and opens the database (moving a damaged one aside); returns the
    /// sequence number the hub continues after. Throws only when the database is another
    /// process's or newer than this code; any other failure leaves the store degraded.
    func start() throws(HistoryStoreError) -> UInt64 {
        files.createDirectory()
        do {
            let lock = try DatabaseLock(path: files.lockPath)
            self.lock = lock
            seqFloor = lock.recordedFloor
        } catch {
            switch error {
            case .held(let holder): throw .inUse(path: files.path, holder: holder)
            case .system(let error):
                seqFloor = DatabaseLock.recordedFloor(at: files.lockPath)
                degrade("cannot lock the database (\(error.reason))", detail: error.description)
            }
        }
        if lock != nil { try openDatabase() }
        recordStoppedGap(until: .now())
        highestSeen = max(seqFloor, committedSeq)
        let writer = self
        loop.execute { writer.checkIntegrity() }
        return highestSeen
    }

    /// Opens the database file, moving it aside when it is damaged.
    func openDatabase() throws(HistoryStoreError) {
        do {
            adopt(try StoreDatabase(path: files.path, migrations: migrations))
        } catch {
            switch error {
            case .newer(let found, let known):
                lock = nil
                throw .newerSchema(path: files.path, version: found, known: known)
            case .needsRebuild(let found): rebuild(from: found)
            case .sqlite(let error): handle(error, during: "opening")
            }
        }
    }

    /// Rebuilds an old database into the current schema, then opens it; on failure the old
    /// file stays as it was and the store is degraded until a later try works.
    private func rebuild(from version: Int32) {
        if let rebuildNotBefore, ContinuousClock.now < rebuildNotBefore { return }
        do {
            try SchemaRebuild(files: files, migrations: migrations, log: log, progress: upgradeProgress)
                .run(from: version)
            rebuildNotBefore = nil
        } catch {
            rebuildNotBefore = .now + Self.rebuildRetry
            return handle(
                error, during: "upgrading from schema version \(version) (tried again in \(Self.rebuildRetry))")
        }
        do {
            adopt(try StoreDatabase(path: files.path, migrations: migrations))
        } catch {
            if case .sqlite(let error) = error { handle(error, during: "opening after the upgrade") }
        }
    }

    /// How long a failed rebuild waits before the next try.
    static let rebuildRetry = Duration.seconds(600)

    /// Takes an opened database's counters into the writer's.
    func adopt(_ opened: StoreDatabase) {
        let found = opened.found
        if database == nil, commits == 0 { previousRunEnded = found.lastAlive }
        database = opened
        rows = found.rows
        committedSeq = max(committedSeq, found.maxSeq ?? 0)
        seqFloor = max(seqFloor, found.seqFloor)
        forgottenThrough = max(forgottenThrough, found.forgottenThrough)
        // What lies before the oldest row was pruned; in an empty file, everything was, up
        // to the readings still waiting to be written.
        var lostBefore = found.minSeq.map { $0 - 1 } ?? max(seqFloor, committedSeq)
        if let waiting = pending.first?.seq { lostBefore = min(lostBefore, waiting - 1) }
        if lostBefore > forgottenThrough {
            forgottenThrough = lostBefore
            let before = found.oldestTime ?? Timestamp.now()
            forgottenTime = max(forgottenTime ?? .min, before.millisecondsSince1970 - 1)
        }
        if let first = pending.first?.seq, let stored = found.maxSeq, stored >= first {
            log.error(
                "history: \(files.path) already holds sequence numbers up to \(stored), above the \(first) waiting; "
                    + "the rows it has are kept and the waiting ones with those numbers are not stored")
        }
        schedulePrune(after: .zero)
    }

    // MARK: Taking readings

    /// Called on the loop after the inbox asked to be woken: commit one interval from now.
    func armCommitTimer() {
        guard commitTimer == nil, !closed else { return }
        commitTimer = loop.schedule(after: configuration.commitInterval) { [weak self] in self?.commit() }
    }

    /// Moves what waits in the inbox to `pending`, dropping numbers already seen and the
    /// oldest beyond the bound.
    func takeInbox() {
        let drops = inbox.take(into: &spare)
        if drops.dropped > 0 { forget(count: drops.dropped, through: drops.droppedThrough, latestTime: nil) }
        for event in spare {
            guard let seq = event.seq, seq > highestSeen else {
                log.warning("history: reading #\(event.seq ?? 0) arrived after #\(highestSeen); not stored twice")
                continue
            }
            highestSeen = seq
            pending.append(event)
        }
        // A burst leaves these arrays (and the inbox's, which gets `spare` at the next take)
        // with room for its size: kept, 100,000 readings' room is 15 MB each, for good.
        spare.removeAll(keepingCapacity: spare.capacity <= Self.keptCapacity)
        let excess = pending.count - configuration.pendingLimit
        if excess > 0 {
            let last = pending[excess - 1]
            forget(count: UInt64(excess), through: last.seq ?? 0, latestTime: last.storedTime)
            pending.removeFirst(excess)
        }
    }

    /// Counts readings that are lost for good.
    func forget(count: UInt64, through seq: UInt64, latestTime: Timestamp?) {
        dropped += count
        forgottenThrough = max(forgottenThrough, seq)
        forgottenTime = max(forgottenTime ?? .min, (latestTime ?? Timestamp.now()).millisecondsSince1970)
        forgottenNeedsWrite = true
        guard !dropsLogged else { return }
        dropsLogged = true
        log.warning(
            "history: more than \(configuration.pendingLimit) readings wait for the disk: dropping the oldest "
                + "(first \(count), through #\(seq)); status counts them")
    }

    // MARK: Committing

    /// Commits what is pending, in one transaction (a first small one while degraded, to
    /// find out cheaply whether the disk takes writes again).
    func commit() {
        commitTimer?.cancel()
        commitTimer = nil
        takeInbox()
        var replacements = 0
        while !pending.isEmpty || !pendingGaps.isEmpty {
            if database == nil { reopen() }
            guard let database else { break }
            let batch = problem == nil ? pending[...] : pending.prefix(Self.probeSize)
            do {
                let meta = try reserveFloor()
                rows += try database.commit(batch, meta: meta, gaps: pendingGaps)
                pendingGaps = []
                forgottenNeedsWrite = false
                commits += 1
                committedSeq = max(committedSeq, batch.last?.seq ?? 0)
                pending.removeFirst(batch.count)
                if problem != nil { recovered() }
            } catch {
                handle(error, during: "committing \(batch.count) readings")
                // A damaged file was replaced: try the new one at once (once).
                replacements += 1
                if problem != nil || replacements > 1 { break }
            }
        }
        if pending.isEmpty, pending.capacity > Self.keptCapacity {
            pending = []
            // The burst's readings were small blocks in this thread's malloc arena, which
            // glibc gives back only when asked.
            HeapTrim.releaseFreeMemory()
        }
        if !pending.isEmpty {
            inbox.keepArmed()
            armCommitTimer()
        } else if inbox.settle() {
            armCommitTimer()
        }
        checkSize()
    }

    /// The first batch after a failure: small, so a disk still full costs little.
    static let probeSize = 1_000

    /// The room for readings the writer's arrays keep between commits (about 0.6 MB):
    /// beyond it, an emptied array gives its memory back.
    static let keptCapacity = 4_096

    /// Raises the floor when the highest number seen comes within the headroom of it: in
    /// the lock file (synced) first, then in `meta` with this commit. Returns what `meta` needs.
    func reserveFloor() throws(SQLiteError) -> [(key: String, value: UInt64)] {
        var meta: [(key: String, value: UInt64)] = []
        if highestSeen + floorHeadroom > seqFloor {
            let floor = highestSeen + 2 * floorHeadroom
            do {
                try lock?.record(floor: floor, durable: true)
            } catch {
                throw SQLiteError(
                    operation: "record the sequence floor", code: SQLITE_IOERR, message: error.description,
                    systemErrno: error.code)
            }
            seqFloor = floor
            meta.append((StoreDatabase.MetaKey.seqFloor, floor))
        }
        if forgottenNeedsWrite { meta.append((StoreDatabase.MetaKey.forgottenThrough, forgottenThrough)) }
        return meta
    }

    /// Commits everything now (clean shutdown, tests).
    func flush() {
        commit()
    }

    /// Commits, records the exact floor (so the next start continues without a gap),
    /// checkpoints the WAL and closes the files.
    func close() {
        guard !closed else { return }
        inbox.close()
        commit()
        closed = true
        commitTimer?.cancel()
        pruneTimer?.cancel()
        if let database, pending.isEmpty {
            do {
                try lock?.record(floor: highestSeen, durable: true)
                _ = try database.commit(
                    [],
                    meta: [
                        (StoreDatabase.MetaKey.seqFloor, highestSeen),
                        (StoreDatabase.MetaKey.closedAt, UInt64(Timestamp.now().millisecondsSince1970)),
                    ])
                seqFloor = highestSeen
                try database.checkpoint()
            } catch {
                log.warning("history: closing \(files.path): \(error)")
            }
        } else if !pending.isEmpty {
            log.warning(
                "history: \(pending.count) readings could not be written before exit (\(problem ?? "no database"))")
        }
        database = nil
        lock = nil
    }
}
