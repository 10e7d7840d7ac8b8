#if canImport(Glibc)
    import Glibc
#endif
import UnixSupport

/// The MQTT password: read from its file at start, refused when others may read it, and
/// warned about when it would cross the network in plain text.
enum Credentials {
    /// The password file's first line, or nil without `mqtt_password_file`.
    ///
    /// - Throws: when the file is missing, empty, unreadable, or open to every user
    ///   (readable or writable by "others"): a password anyone can read is no secret.
    static func password(_ configuration: MQTTOutput.Configuration) throws(MQTTConfigurationError) -> String? {
        guard let path = configuration.passwordFile else { return nil }
        guard configuration.username != nil else {
            throw MQTTConfigurationError("mqtt_password_file needs mqtt_username")
        }
        let text: String?
        do {
            text = try readTextFile(path, limit: 4096)
        } catch {
            throw MQTTConfigurationError("cannot read mqtt_password_file: \(error)")
        }
        guard let text else { throw MQTTConfigurationError("cannot read mqtt_password_file: \(path) does not exist") }
        try checkPrivate(path)
        let password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !password.isEmpty else { throw MQTTConfigurationError("mqtt_password_file \(path) is empty") }
        return password
    }

    /// Refuses a file whose mode lets other users (not the owner, not its group) read or
    /// write it.
    static func checkPrivate(_ path: String) throws(MQTTConfigurationError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MQTTConfigurationError("cannot read mqtt_password_file: stat(\(path)) failed (errno \(errno))")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o006 == 0 else {
            throw MQTTConfigurationError(
                "mqtt_password_file \(path) is open to every user (mode \(octal(mode))): run 'chmod 600 \(path)' "
                    + "(or 640, with a group blectld is in)")
        }
    }

    /// The warning for a password sent unencrypted (`mqtt://`) to a broker off this host,
    /// or nil when it stays on loopback, goes over TLS, or there is none.
    static func plaintextWarning(_ configuration: MQTTOutput.Configuration) -> String? {
        guard configuration.passwordFile != nil, !configuration.broker.tls,
            !isLoopback(configuration.broker.host)
        else { return nil }
        return "MQTT: the password goes to \(configuration.broker.host) unencrypted (mqtt://), readable by anyone "
            + "on the network between; use mqtts:// (TLS) for a broker that is not on this host"
    }

    /// `localhost`, 127.0.0.0/8 and ::1 (also as ::ffff:127.x.y.z).
    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        return bytes == Array(repeating: 0, count: 15) + [1]
            || (bytes.prefix(12).elementsEqual(mappedPrefix)
                && bytes[12] == 127)
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
