import CBlueZ
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Drives one libdbus connection from its dispatch queue, as BlueZ's
/// `gdbus/mainloop.c` does from GLib: every `DBusWatch` becomes a dispatch
/// source, watch toggles suspend or resume it, timeouts become timers, and the
/// dispatch-status callback only *schedules* a drain of incoming messages.
final class MainLoop: @unchecked Sendable {
    // @unchecked: every member is touched only on `queue`; libdbus calls the
    // callbacks below from functions that themselves run only on `queue`.
    let queue: DispatchQueue
    private let connection: OpaquePointer
    private var watches: [OpaquePointer: [any DispatchSourceProtocol]] = [:]
    private var timers: [OpaquePointer: any DispatchSourceTimer] = [:]
    private var drainScheduled = false
    private var stopped = false
    /// Messages dispatched per queue turn, so one busy connection can't starve the queue.
    private let drainBatch = 256

    init(connection: OpaquePointer, queue: DispatchQueue) {
        self.connection = connection
        self.queue = queue
    }

    /// Installs the callbacks; call on `queue`, once.
    func start() {
        dispatchPrecondition(condition: .onQueue(queue))
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(connection, addWatch, removeWatch, toggleWatch, me, nil)
        dbus_connection_set_timeout_functions(connection, addTimeout, removeTimeout, toggleTimeout, me, nil)
        dbus_connection_set_dispatch_status_function(connection, dispatchStatusChanged, me, nil)
        dbus_connection_set_wakeup_main_function(connection, wakeUp, me, nil)
        scheduleDrain()
    }

    /// Removes every source; call on `queue` before the connection is released.
    func stop() {
        dispatchPrecondition(condition: .onQueue(queue))
        stopped = true
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        for watch in Array(watches.keys) { remove(watch: watch) }
        for timer in timers.values { timer.cancel() }
        timers = [:]
    }

    func scheduleDrain() {
        guard !drainScheduled, !stopped else { return }
        drainScheduled = true
        queue.async { [self] in drain() }
    }

    private func drain() {
        drainScheduled = false
        guard !stopped else { return }
        for _ in 0..<drainBatch {
            guard dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS, !stopped else { return }
        }
        scheduleDrain()
    }

    // MARK: Watches

    fileprivate func add(watch: OpaquePointer) {
        let flags = dbus_watch_get_flags(watch)
        var sources: [any DispatchSourceProtocol] = []
        // Each source watches its own duplicate of the socket, closed by its cancel
        // handler: libdbus closes its descriptor right after removing the watch,
        // and libdispatch must not see a descriptor closed under a live source.
        if flags & cbluez_watch_readable != 0, let fd = duplicate(watch) {
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in self?.handle(watch, cbluez_watch_readable) }
            source.setCancelHandler { close(fd) }
            sources.append(source)
        }
        if flags & cbluez_watch_writable != 0, let fd = duplicate(watch) {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [weak self] in self?.handle(watch, cbluez_watch_writable) }
            source.setCancelHandler { close(fd) }
            sources.append(source)
        }
        watches[watch] = sources
        // New sources start suspended; libdispatch traps when a suspended source is
        // released, so `remove(watch:)` resumes before it cancels.
        if dbus_watch_get_enabled(watch) != 0 { sources.forEach { $0.resume() } } else { suspended.insert(watch) }
    }

    private var suspended: Set<OpaquePointer> = []

    private func duplicate(_ watch: OpaquePointer) -> Int32? {
        let fd = fcntl(dbus_watch_get_unix_fd(watch), F_DUPFD_CLOEXEC, 0)
        return fd >= 0 ? fd : nil
    }

    fileprivate func remove(watch: OpaquePointer) {
        guard let sources = watches.removeValue(forKey: watch) else { return }
        if suspended.remove(watch) != nil { sources.forEach { $0.resume() } }
        sources.forEach { $0.cancel() }
    }

    fileprivate func toggle(watch: OpaquePointer) {
        guard let sources = watches[watch] else { return }
        let enabled = dbus_watch_get_enabled(watch) != 0
        if enabled, suspended.remove(watch) != nil {
            sources.forEach { $0.resume() }
        } else if !enabled, !suspended.contains(watch) {
            suspended.insert(watch)
            sources.forEach { $0.suspend() }
        }
    }

    private func handle(_ watch: OpaquePointer, _ flag: UInt32) {
        guard !stopped, watches[watch] != nil else { return }
        dbus_watch_handle(watch, flag)
        scheduleDrain()
    }

    // MARK: Timeouts

    fileprivate func add(timeout: OpaquePointer) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in
            guard let self, !stopped, timers[timeout] != nil else { return }
            dbus_timeout_handle(timeout)
            scheduleDrain()
        }
        timers[timeout] = timer
        arm(timer, timeout)
        timer.resume()
    }

    fileprivate func remove(timeout: OpaquePointer) {
        timers.removeValue(forKey: timeout)?.cancel()
    }

    fileprivate func toggle(timeout: OpaquePointer) {
        guard let timer = timers[timeout] else { return }
        arm(timer, timeout)
    }

    private func arm(_ timer: any DispatchSourceTimer, _ timeout: OpaquePointer) {
        guard dbus_timeout_get_enabled(timeout) != 0 else {
            timer.schedule(deadline: .distantFuture)
            return
        }
        let interval = DispatchTimeInterval.milliseconds(Int(dbus_timeout_get_interval(timeout)))
        timer.schedule(deadline: .now() + interval, repeating: interval)
    }
}

// MARK: C callbacks (called by libdbus on the loop's queue)

private func loop(_ data: UnsafeMutableRawPointer?) -> MainLoop {
    Unmanaged<MainLoop>.fromOpaque(data!).takeUnretainedValue()
}

private let addWatch: DBusAddWatchFunction = { watch, data in
    loop(data).add(watch: watch!)
    return 1
}
private let removeWatch: DBusRemoveWatchFunction = { watch, data in loop(data).remove(watch: watch!) }
private let toggleWatch: DBusWatchToggledFunction = { watch, data in loop(data).toggle(watch: watch!) }
private let addTimeout: DBusAddTimeoutFunction = { timeout, data in
    loop(data).add(timeout: timeout!)
    return 1
}
private let removeTimeout: DBusRemoveTimeoutFunction = { timeout, data in loop(data).remove(timeout: timeout!) }
private let toggleTimeout: DBusTimeoutToggledFunction = { timeout, data in loop(data).toggle(timeout: timeout!) }
private let dispatchStatusChanged: DBusDispatchStatusFunction = { _, status, data in
    if status == DBUS_DISPATCH_DATA_REMAINS { loop(data).scheduleDrain() }
}
private let wakeUp: DBusWakeupMainFunction = { data in loop(data).scheduleDrain() }
