public import BlectlProtocol
public import ReadingHub

/// A command's outcome, typed; the socket server turns it into a reply line.
public enum Response: Equatable, Sendable {
    /// The result of `status`.
    case status(StatusResult)
    /// The result of `peripherals` and `scan`.
    case peripherals([PeripheralInfo])
    /// The result of `read`.
    case readings([ReadingReport])
    /// The result of `history`.
    case history(HistoryResult)
    /// The result of `subscribe`.
    case subscribed(SubscribeResult)
    /// The result of `memory_download`: the sensor's entry after the download.
    case sensorMemory(SensorMemoryStatus)
    /// A failure.
    case failure(ErrorInfo)

    /// The reply line for the request with `id`, newline included.
    public func line(id: Int?) -> [UInt8] {
        do {
            switch self {
            case .status(let result): return try JSONLines.encode(Reply.success(id: id, result))
            case .peripherals(let result): return try JSONLines.encode(Reply.success(id: id, result))
            case .readings(let result): return try JSONLines.encode(Reply.success(id: id, result))
            case .history(let result): return try JSONLines.encode(Reply.success(id: id, result))
            case .subscribed(let result): return try JSONLines.encode(Reply.success(id: id, result))
            case .sensorMemory(let result): return try JSONLines.encode(Reply.success(id: id, result))
            case .failure(let error): return try JSONLines.encode(Reply<Empty>.failure(id: id, error))
            }
        } catch {
            // Encoding plain structs cannot fail in practice (only non-finite numbers
            // could); answer anyway so the client is not left waiting.
            let fallback = Reply<Empty>.failure(id: id, ErrorInfo(.internal, "could not encode the reply"))
            return (try? JSONLines.encode(fallback)) ?? Array("{\"ok\":false}\n".utf8)
        }
    }
}

extension Response {
    /// The reply line for the request with `id`, at most `maxBytes` long where cutting
    /// can do it: a `history` page that would be longer ends earlier, with `more`, so the
    /// client asks for the rest after its last event (at least one event is kept).
    ///
    /// A full page (1,000 events, about 160 KB) must not exceed a client's output queue
    /// (`client_queue_bytes`, 64 KiB at the least), which would drop the client for asking.
    public func line(id: Int?, maxBytes: Int) -> [UInt8] {
        guard case .history(var result) = self else { return line(id: id) }
        var line = line(id: id)
        while line.count > maxBytes, result.events.count > 1 {
            // Events are of similar size: keep the share that fits, less a tenth for the spread.
            let share = result.events.count * maxBytes / line.count * 9 / 10
            result.events.removeLast(result.events.count - min(max(1, share), result.events.count - 1))
            result.more = true
            line = Response.history(result).line(id: id)
        }
        return line
    }
}

/// Answers commands; the socket server calls it for every request but `subscribe`,
/// which belongs to the connection.
public protocol RequestHandling: Sendable {
    /// The outcome of `command`.
    func handle(_ command: Command) async -> Response
}

/// Answers commands from a ``Hub``.
public struct RequestDispatcher: RequestHandling {
    /// The state the answers come from.
    public let hub: Hub

    /// Creates a dispatcher for `hub`.
    public init(hub: Hub) {
        self.hub = hub
    }

    /// Answers `command` from the hub.
    public func handle(_ command: Command) async -> Response {
        switch command {
        case .status:
            return .status(await hub.status())
        case .peripherals:
            return .peripherals(await hub.peripherals())
        case .history(let query):
            do {
                return .history(try await hub.history(query))
            } catch {
                return .failure(error)
            }
        case .read(let address, let timeout):
            do {
                return .readings(try await hub.read(matching: address, timeout: Self.duration(timeout)))
            } catch {
                return .failure(error)
            }
        case .scan(let timeout):
            do {
                return .peripherals(try await hub.scan(timeout: Self.duration(timeout)))
            } catch {
                return .failure(error)
            }
        case .memoryDownload(let address, let timeout):
            do {
                return .sensorMemory(try await hub.downloadMemory(of: address, timeout: Self.duration(timeout)))
            } catch {
                return .failure(error)
            }
        case .subscribe:
            return .failure(ErrorInfo(.internal, "subscribe is handled by the connection"))
        }
    }

    /// Seconds as a duration; capped at a day before converting, so an absurd value cannot
    /// overflow (the hub applies the real limits).
    private static func duration(_ seconds: Double?) -> Duration? {
        seconds.map { .milliseconds(Int64(min($0, 86_400) * 1000)) }
    }
}
