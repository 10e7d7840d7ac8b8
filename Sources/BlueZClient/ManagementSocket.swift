import CBlueZ
public import ConcurrencySupport
import Glibc
import UnixSupport

/// Why the management socket cannot be listened to: advertisements then come through BlueZ's
/// D-Bus signals.
public struct ManagementSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A one-line account, with what would make it work.
    public var description: String
}

/// The kernel's Bluetooth management socket (the control channel of every controller),
/// listened to for the advertisements discovery hears, as Home Assistant's Bluetooth stack does:
/// bluetoothd keeps running the discovery; this socket only listens.
///
/// The descriptor is watched by the event loop it was opened on (no thread, no polling); each
/// readable wake-up reads every event queued. Confined to that loop's thread.
public final class ManagementSocket {
    /// The capabilities without which the kernel delivers no Device Found event (a socket
    /// opened without CAP_NET_ADMIN is bound, but untrusted: it hears no advertisement).
    static let neededCapabilities: [(bit: Int, name: String)] = [(12, "CAP_NET_ADMIN"), (13, "CAP_NET_RAW")]

    private let fd: Int32
    private var watch: IOWatch?
    /// One buffer for every read: the largest event is an extended advertisement's (1,650 bytes of data).
    private var buffer = [UInt8](repeating: 0, count: 4096)

    /// Opens the socket; throws when the kernel has no Bluetooth, or this process lacks the
    /// capabilities the advertisements need.
    public static func open() throws(ManagementSocketError) -> ManagementSocket {
        if let missing = missingCapabilities(status: (try? readTextFile("/proc/self/status")) ?? "") {
            throw ManagementSocketError(
                description: "the management socket needs \(missing.joined(separator: " and ")) (the systemd drop-in "
                    + "blectld-mgmt.conf grants them)")
        }
        let fd = cbluez_mgmt_open()
        guard fd >= 0 else {
            let reason = String(cString: strerror(-fd))
            let hint = -fd == EAFNOSUPPORT ? " (this kernel has no Bluetooth)" : ""
            throw ManagementSocketError(description: "cannot open the management socket: \(reason)\(hint)")
        }
        return ManagementSocket(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    /// A socket over a descriptor that reads as the management socket does, one event per
    /// read (tests: one end of a `SOCK_SEQPACKET` pair); it is owned, and closed, from now on.
    public static func adopting(descriptor: Int32) -> ManagementSocket { ManagementSocket(fd: descriptor) }

    deinit {
        watch?.cancel()
        close(fd)
    }

    /// The capabilities of ``neededCapabilities`` missing from `CapEff` in a `/proc/PID/status`
    /// text; nil when none is (or the line cannot be read: the socket then says for itself).
    static func missingCapabilities(status: String) -> [String]? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let mask = UInt64(line.dropFirst("CapEff:".count).trimmingPrefix(while: \.isWhitespace), radix: 16)
        else { return nil }
        let missing = neededCapabilities.filter { mask & (1 << UInt64($0.bit)) == 0 }.map(\.name)
        return missing.isEmpty ? nil : missing
    }

    /// Calls `advertised` for each advertisement, `problem` for each event that could not be
    /// decoded (dropped alone: the next is read as usual), and `failed` once if the socket
    /// fails (it is then no longer watched); all on `loop`'s thread, which this is called on.
    public func listen(
        on loop: EventLoop, advertised: @escaping (ManagementAdvertisement) -> Void,
        problem: @escaping (ManagementDecodeError) -> Void, failed: @escaping (String) -> Void
    ) {
        watch?.cancel()
        let watch = loop.watch(fd) { [unowned self] events in
            self.readAll(advertised: advertised, problem: problem, failed: failed)
        }
        watch.wantsRead = true
        self.watch = watch
    }

    /// Stops listening (the descriptor is closed when the socket is released).
    public func stop() {
        watch?.cancel()
        watch = nil
    }

    private func readAll(
        advertised: (ManagementAdvertisement) -> Void, problem: (ManagementDecodeError) -> Void,
        failed: (String) -> Void
    ) {
        // A bounded batch per wake-up: the descriptor stays readable (level-triggered) and the
        // loop's other work gets its turn in a flood.
        for _ in 0..<64 {
            let count = buffer.withUnsafeMutableBytes { bytes in recv(fd, bytes.baseAddress, bytes.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                let reason = String(cString: strerror(errno))
                stop()
                failed("reading the management socket failed: \(reason)")
                return
            }
            if count == 0 { return }
            buffer.withUnsafeBytes { bytes in
                do throws(ManagementDecodeError) {
                    if let advertisement = try ManagementEvents.decode(
                        UnsafeRawBufferPointer(rebasing: bytes[..<count]))
                    {
                        advertised(advertisement)
                    }
                } catch {
                    problem(error)
                }
            }
        }
    }
}
