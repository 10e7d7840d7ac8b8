import Daemon

extension FuzzTarget {
    /// A configuration file, read as `blectld --config FILE` reads it.
    static let configurationFile = FuzzTarget(
        name: "config", summary: "a configuration file through blectld's option and file parsing"
    ) { bytes in
        // readTextFile's decoding: invalid UTF-8 becomes U+FFFD, as from a file on disk.
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(ConfigurationError) {
            _ = try DaemonConfiguration.load(
                arguments: ["--config", "fuzz.conf"], environment: [:], readFile: { _ in text })
            return true
        } catch {
            require(!error.description.isEmpty, "a configuration error without a message")
            require(error.exitCode == 78, "a file's mistake must exit 78 (EX_CONFIG), not \(error.exitCode)")
            return false
        }
    }
}
