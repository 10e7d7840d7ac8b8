import Central
import Glibc
import SensorModel
import UnixSupport

/// Where sensor keys come from besides the configuration file's `bthome_key` and
/// `mibeacon_key` lines: `key_file`, and the systemd credential `blectl-keys`
/// (`LoadCredential=blectl-keys:/etc/blectl/keys` in a drop-in).
///
/// A key is a secret: every file that holds one must be private to root and blectld's group.
/// One that every user may read is refused (exit 78), naming the file and what to run; the
/// keys themselves are never repeated in a message.
extension DaemonConfiguration {
    /// The systemd credential blectld reads keys from when its unit loads one.
    static let keyCredential = "blectl-keys"

    /// Reads the key file and the credential into ``advertisementKeys``, after checking that
    /// every source of keys (the configuration file too, when it holds some) is private.
    ///
    /// - Parameters:
    ///   - readFile: reads a file; nil when it does not exist.
    ///   - permissions: a file's permission bits.
    mutating func loadKeys(
        environment: [String: String], readFile: (String) throws(SystemError) -> String?,
        permissions: (String) throws(SystemError) -> UInt32
    ) throws(ConfigurationError) {
        if !advertisementKeys.isEmpty { try Self.requirePrivate(configPath, permissions) }
        if let path = advertisements.keyFile {
            guard let text = try Self.read(path, readFile) else {
                throw .unreadable(SystemError("open(\(path))", code: ENOENT))
            }
            try Self.requirePrivate(path, permissions)
            try apply(keyFileText: text, path: path)
        }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory + "/" + Self.keyCredential
            if let text = try Self.read(path, readFile) {
                try Self.requirePrivate(path, permissions)
                try apply(keyFileText: text, path: path)
            }
        }
    }

    /// Applies a key file's `ADDRESS = HEX` lines (`#` comments and blank lines allowed).
    mutating func apply(keyFileText text: String, path: String) throws(ConfigurationError) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, rawLine) in lines.enumerated() {
            let line = Self.strippingComment(rawLine).trimmed
            if line.isEmpty { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map(\.trimmed)
            guard parts.count == 2, let address = BluetoothAddress(parts[0]) else {
                // The line is not repeated: it may hold a key.
                throw .file(path: path, line: index + 1, message: "expected 'ADDRESS = HEX'")
            }
            do {
                try setKey(for: address) { () throws(AdvertisementKey.ParseError) in
                    try AdvertisementKey.anyFormat(hex: parts[1])
                }
            } catch {
                throw .file(path: path, line: index + 1, message: "\(address): \(error.message)")
            }
        }
    }

    private static func read(_ path: String, _ readFile: (String) throws(SystemError) -> String?)
        throws(ConfigurationError) -> String?
    {
        do {
            return try readFile(path)
        } catch {
            throw .unreadable(error)
        }
    }

    /// Refuses `path` when every user may read it.
    private static func requirePrivate(_ path: String, _ permissions: (String) throws(SystemError) -> UInt32)
        throws(ConfigurationError)
    {
        let mode: UInt32
        do {
            mode = try permissions(path)
        } catch {
            throw .unreadable(error)
        }
        if mode & UInt32(S_IROTH) != 0 { throw .exposedKeys(path: path, mode: mode) }
    }
}
