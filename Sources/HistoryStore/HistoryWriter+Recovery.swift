import BlectlProtocol
import CSQLite

extension HistoryWriter {
    /// Deals with a failed SQLite call: a damaged file is moved aside and replaced; any
    /// other failure leaves the store degraded (readings wait in memory) until a retry works.
    func handle(_ error: SQLiteError, during activity: String) {
        if error.isCorruption {
            replaceDamagedFile(error, during: activity)
            return
        }
        degrade(error.reason, detail: "\(activity): \(error)")
        if error.needsReopen { database = nil }
    }

    /// Marks the store degraded; logs once per distinct reason.
    func degrade(_ reason: String, detail: String) {
        if problem != reason {
            log.warning(
                "history: cannot write \(files.path) (\(detail)); live readings go on, up to "
                    + "\(configuration.pendingLimit) wait in memory, and writing is tried again every "
                    + "\(configuration.commitInterval)")
        }
        problem = reason
    }

    /// The disk takes writes again.
    func recovered() {
        log.notice(
            "history: writing \(files.path) again after: \(problem ?? ""); \(dropped) readings dropped since start")
        problem = nil
        dropsLogged = false
    }

    /// Tries again to take the lock and open the database (after a read-only directory,
    /// say, or another process holding the lock at the last try).
    func reopen() {
        if lock == nil {
            do {
                lock = try DatabaseLock(path: files.lockPath)
                seqFloor = max(seqFloor, lock?.recordedFloor ?? 0)
            } catch {
                switch error {
                case .held(let holder):
                    let who = holder.map { "process \($0)" } ?? "another process"
                    return degrade("in use by \(who)", detail: "the lock file \(files.lockPath) is held by \(who)")
                case .system(let error):
                    return degrade("cannot lock the database (\(error.reason))", detail: error.description)
                }
            }
        }
        do {
            try openDatabase()
        } catch {
            degrade("cannot open: \(error)", detail: error.description)
        }
    }

    /// Moves a damaged database aside (`<path>.corrupt-<time>`), starts a new one, and
    /// keeps numbering after the highest number known: the readings in the old file are
    /// counted as lost, the ones in memory are written to the new file.
    func replaceDamagedFile(_ error: SQLiteError, during activity: String) {
        database = nil
        let aside: String
        do {
            aside = try files.moveAside(at: .now())
        } catch {
            return degrade(
                "damaged, and cannot be moved aside (\(error.reason))", detail: "\(activity): \(error.description)")
        }
        // What the old file held: through the last commit, or, when it was never read, through
        // the floor the lock file recorded.
        let lost = committedSeq > 0 ? committedSeq : seqFloor
        log.error(
            "history: \(files.path) is damaged (\(activity): \(error)); moved it aside to \(aside) and started a "
                + "new database; sequence numbers continue after #\(max(seqFloor, highestSeen, committedSeq))")
        forgottenThrough = max(forgottenThrough, lost)
        forgottenTime = Timestamp.now().millisecondsSince1970
        forgottenNeedsWrite = true
        rows = 0
        problem = nil
        do {
            adopt(try StoreDatabase(path: files.path, migrations: migrations))
        } catch {
            switch error {
            case .sqlite(let error): degrade(error.reason, detail: "creating a new database: \(error)")
            case .newer, .needsRebuild: degrade("cannot create a new database", detail: "\(error)")
            }
        }
    }

    /// `PRAGMA quick_check` once after opening, on the store's thread: damage anywhere in
    /// the file is found at start, not when a query happens to read the page.
    func checkIntegrity() {
        guard let database, !closed else { return }
        do {
            if let complaint = try database.quickCheck() {
                replaceDamagedFile(
                    SQLiteError(operation: "PRAGMA quick_check", code: SQLITE_CORRUPT, message: complaint),
                    during: "the check at start")
            }
        } catch {
            handle(error, during: "the check at start")
        }
    }
}
