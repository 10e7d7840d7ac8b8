import CBlueZ
import ConcurrencySupport

#if canImport(Glibc)
    import Glibc
#endif

/// Drives one libdbus connection from its event loop, as BlueZ's `gdbus/mainloop.c`
/// does from GLib: every `DBusWatch` becomes an ``IOWatch``, watch toggles change what
/// it wants, timeouts become loop timers, and the dispatch-status callback only
/// *schedules* a drain of incoming messages.
final class MainLoop: @unchecked Sendable {
    // @unchecked: every member is touched only on the loop's thread; libdbus calls the
    // callbacks below from functions that themselves run only there.
    let eventLoop: EventLoop
    private let connection: OpaquePointer
    private var watches: [OpaquePointer: IOWatch] = [:]
    private var timers: [OpaquePointer: LoopTimer] = [:]
    private var drainScheduled = false
    private var stopped = false
    /// Messages dispatched per turn, so one busy connection can't starve the loop.
    private let drainBatch = 256

    init(connection: OpaquePointer, eventLoop: EventLoop) {
        self.connection = connection
        self.eventLoop = eventLoop
    }

    /// Installs the callbacks; call on the loop, once.
    func start() {
        precondition(eventLoop.isCurrent)
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(connection, addWatch, removeWatch, toggleWatch, me, nil)
        dbus_connection_set_timeout_functions(connection, addTimeout, removeTimeout, toggleTimeout, me, nil)
        dbus_connection_set_dispatch_status_function(connection, dispatchStatusChanged, me, nil)
        dbus_connection_set_wakeup_main_function(connection, wakeUp, me, nil)
        scheduleDrain()
    }

    /// Removes every watch and timer; call on the loop before the connection is released.
    func stop() {
        precondition(eventLoop.isCurrent)
        stopped = true
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        for watch in watches.values { watch.cancel() }
        watches = [:]
        for timer in timers.values { timer.cancel() }
        timers = [:]
    }

    func scheduleDrain() {
        guard !drainScheduled, !stopped else { return }
        drainScheduled = true
        eventLoop.execute { [self] in drain() }
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
        let io = eventLoop.watch(dbus_watch_get_unix_fd(watch)) { [unowned self] events in
            handle(watch, events)
        }
        watches[watch] = io
        toggle(watch: watch)
    }

    fileprivate func remove(watch: OpaquePointer) {
        // libdbus closes the descriptor right after this: the watch leaves epoll first.
        watches.removeValue(forKey: watch)?.cancel()
    }

    fileprivate func toggle(watch: OpaquePointer) {
        guard let io = watches[watch] else { return }
        let flags = dbus_watch_get_enabled(watch) != 0 ? dbus_watch_get_flags(watch) : 0
        io.wantsRead = flags & cbluez_watch_readable != 0
        io.wantsWrite = flags & cbluez_watch_writable != 0
    }

    private func handle(_ watch: OpaquePointer, _ events: IOEvents) {
        guard !stopped, watches[watch] != nil else { return }
        var flags: UInt32 = 0
        if events.contains(.readable) { flags |= cbluez_watch_readable }
        if events.contains(.writable) { flags |= cbluez_watch_writable }
        if events.contains(.hangup) { flags |= cbluez_watch_hangup }
        if events.contains(.error) { flags |= cbluez_watch_error }
        dbus_watch_handle(watch, flags)
        scheduleDrain()
    }

    // MARK: Timeouts

    fileprivate func add(timeout: OpaquePointer) {
        arm(timeout)
    }

    fileprivate func remove(timeout: OpaquePointer) {
        timers.removeValue(forKey: timeout)?.cancel()
    }

    fileprivate func toggle(timeout: OpaquePointer) {
        arm(timeout)
    }

    /// (Re)starts the timeout's interval; libdbus timeouts repeat until removed or disabled.
    private func arm(_ timeout: OpaquePointer) {
        timers.removeValue(forKey: timeout)?.cancel()
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = Duration.milliseconds(dbus_timeout_get_interval(timeout))
        timers[timeout] = eventLoop.schedule(after: interval) { [unowned self] in
            guard !stopped, timers[timeout] != nil else { return }
            arm(timeout)
            dbus_timeout_handle(timeout)
            scheduleDrain()
        }
    }
}

// MARK: C callbacks (called by libdbus on the loop's thread)

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
