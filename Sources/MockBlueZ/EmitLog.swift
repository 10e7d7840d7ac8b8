import ConcurrencySupport
import DBusCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The emit log (`blectl-mock --emit-log FILE`): when each temperature notification left the
/// mock, so a benchmark can count what a consumer lost and measure its latency
/// (`bench/`, `docs/benchmarks.md`).
///
/// The file is a 16-byte header, `blectl-emitlog1\n`, then one 16-byte little-endian record
/// per notification (per value sent, however many links are subscribed):
///
/// | bytes | field |
/// |---|---|
/// | 0–3 | `u32` peripheral index (thermometer *i* is `DC:A6:32:00:<i/256>:<i%256+1>`) |
/// | 4–7 | `u32` that peripheral's notification number, from 1 |
/// | 8–15 | `u64` `CLOCK_MONOTONIC` nanoseconds just before the signal is built and sent |
///
/// An advertising sensor's report (per adapter) is a record too: its index among the
/// peripherals with the top bit set (`0x8000_0000 | i`; with `--thermometers 0 --others 0`
/// sensor *i* is `A4:C1:38:AD:<i/256>:<(i+1)%256>`), the sensor's own
/// measurement counter (``AdvertiserState/counter``; the advertisement carries its low byte
/// for BTHome and pvvx) and the time just before the report is processed.
///
/// With the `counter` pattern, notification *n* of a thermometer carries its start
/// temperature plus *n* tenths (wrapping within 40.0–65.0 °C), so a consumer's values map
/// back to notification numbers. Records are buffered (64 KiB) and written on ``close()``;
/// the hot path takes a lock, reads the clock and appends 16 bytes.
public final class EmitLog: Sendable {
    /// The process's emit log; records nothing until ``open(_:)``.
    public static let shared = EmitLog()

    private struct State {
        var fd: Int32 = -1
        var buffer: [UInt8] = []
        var sequences: [UInt32] = []
    }

    private static let header = Array("blectl-emitlog1\n".utf8)
    private static let flushSize = 64 * 1024
    private let state = Locked(State())

    private init() {}

    /// Starts logging to `path` (created or truncated).
    public func open(_ path: String) throws(EmitLogError) {
        let fd = openForWriting(path)
        guard fd >= 0 else { throw EmitLogError(message: "cannot open \(path): errno \(errno)") }
        state.withLock { state in
            state.fd = fd
            state.buffer.reserveCapacity(Self.flushSize + 16)
            state.buffer.append(contentsOf: Self.header)
        }
    }

    /// Notes that thermometer `peripheral` just sent a value.
    func record(peripheral: Int) {
        state.withLock { state in
            guard state.fd >= 0 else { return }
            if peripheral >= state.sequences.count {
                state.sequences.append(contentsOf: repeatElement(0, count: peripheral + 1 - state.sequences.count))
            }
            state.sequences[peripheral] &+= 1
            Self.append(UInt32(truncatingIfNeeded: peripheral), state.sequences[peripheral], to: &state)
        }
    }

    /// Notes that advertising sensor `peripheral` was just heard with measurement `counter`.
    func record(advertiser peripheral: Int, counter: UInt32) {
        state.withLock { state in
            guard state.fd >= 0 else { return }
            Self.append(0x8000_0000 | UInt32(truncatingIfNeeded: peripheral), counter, to: &state)
        }
    }

    /// Appends one record stamped now, and flushes a full buffer.
    private static func append(_ peripheral: UInt32, _ number: UInt32, to state: inout State) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        append(peripheral, to: &state.buffer)
        append(number, to: &state.buffer)
        append(UInt32(truncatingIfNeeded: nanoseconds), to: &state.buffer)
        append(UInt32(truncatingIfNeeded: nanoseconds >> 32), to: &state.buffer)
        if state.buffer.count >= flushSize { flush(&state) }
    }

    /// Writes what is buffered and closes the file; later records are dropped.
    public func close() {
        state.withLock { state in
            guard state.fd >= 0 else { return }
            Self.flush(&state)
            closeFile(state.fd)
            state.fd = -1
        }
    }

    private static func append(_ value: UInt32, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
    }

    private static func flush(_ state: inout State) {
        var offset = 0
        state.buffer.withUnsafeBytes { bytes in
            while offset < bytes.count {
                let written = write(state.fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break }
                offset += written
            }
        }
        state.buffer.removeAll(keepingCapacity: true)
    }
}

/// The emit log could not be opened.
public struct EmitLogError: Error, Sendable {
    /// What went wrong.
    public let message: String
}

private func openForWriting(_ path: String) -> Int32 { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }

private func closeFile(_ fd: Int32) { _ = close(fd) }
