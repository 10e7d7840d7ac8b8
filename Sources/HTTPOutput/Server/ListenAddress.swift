import Glibc
import UnixSupport

/// Where the HTTP output listens: a numeric IPv4 or IPv6 address and a port, written
/// `127.0.0.1:9266` or `[::1]:9266` (`[::]:9266`: every address).
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    /// The address as written, without brackets (`127.0.0.1`, `::1`).
    public let host: String
    /// The port; 0 lets the kernel pick a free one (its number is logged).
    public private(set) var port: UInt16
    private let family: Int32

    /// Parses `ADDRESS:PORT`; nil for anything else (a host name, a missing port, brackets
    /// around IPv4 or none around IPv6).
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        var host = String(text[..<colon])
        let bracketed = host.hasPrefix("[") && host.hasSuffix("]")
        if bracketed { host = String(host.dropFirst().dropLast()) }
        let family = bracketed ? AF_INET6 : AF_INET
        var probe = in6_addr()
        guard !host.isEmpty, inet_pton(family, host, &probe) == 1 else { return nil }
        self.host = host
        self.port = port
        self.family = family
    }

    /// The same address with another port (the one the kernel picked for port 0).
    func withPort(_ port: UInt16) -> ListenAddress {
        var copy = self
        copy.port = port
        return copy
    }

    /// `127.0.0.1:9266` or `[::1]:9266`.
    public var description: String {
        family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Whether only this machine can connect: 127.0.0.0/8, `::1`, or IPv4-mapped loopback.
    public var isLoopback: Bool {
        if family == AF_INET { return host.split(separator: ".").first == "127" }
        var address = in6_addr()
        inet_pton(AF_INET6, host, &address)
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        let mappedIPv4 = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
        return bytes == [UInt8](repeating: 0, count: 15) + [1] || (mappedIPv4 && bytes[12] == 127)
    }

    /// A listening, non-blocking TCP socket on this address; returns it and the port it got.
    func listen(backlog: Int32 = 128) throws(SystemError) -> (fd: Int32, port: UInt16) {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else {
            let error = SystemError.current("socket(\(self), http_listen)")
            guard error.code == EAFNOSUPPORT else { throw error }
            // systemd's RestrictAddressFamilies= (the unit allows only AF_UNIX) looks like this.
            throw SystemError(
                "socket(\(self), http_listen; under systemd install systemd/blectld-http.conf, see docs/http.md)",
                code: error.code)
        }
        do throws(SystemError) {
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            try withSocketAddress { address, length throws(SystemError) in
                guard bind(fd, address, length) == 0 else { throw .current("bind(\(self), http_listen)") }
            }
            guard Glibc.listen(fd, backlog) == 0 else { throw .current("listen(\(self), http_listen)") }
            return (fd, try boundPort(fd))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Calls `body` with this address as a `sockaddr` (getaddrinfo with numeric host and port).
    private func withSocketAddress(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> Void
    ) throws(SystemError) {
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let found, let address = found.pointee.ai_addr else {
            throw SystemError(
                "getaddrinfo(\(self), http_listen): \(String(cString: gai_strerror(status)))", code: EINVAL)
        }
        defer { freeaddrinfo(found) }
        try body(address, found.pointee.ai_addrlen)
    }

    /// The port `fd` is bound to (the kernel's choice when asked for 0).
    private func boundPort(_ fd: Int32) throws(SystemError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutableBytes(of: &storage) { raw in
            getsockname(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard result == 0 else { throw .current("getsockname(\(self), http_listen)") }
        return withUnsafeBytes(of: storage) { raw in
            family == AF_INET6
                ? UInt16(bigEndian: raw.load(as: sockaddr_in6.self).sin6_port)
                : UInt16(bigEndian: raw.load(as: sockaddr_in.self).sin_port)
        }
    }
}
