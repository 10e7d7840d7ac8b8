import UnixSupport

/// The acknowledged position, kept in the state directory (`mqtt.position`): the highest
/// `seq` the broker acknowledged with every one before it, so a restarted blectld publishes
/// what came after it.
///
/// Written by rename, so a crash leaves the old file or the new one, never half of one;
/// at most once a second while acknowledgements arrive, and at shutdown.
struct AckPosition {
    /// The file, or nil when the position is not kept.
    let path: String?

    init(directory: String?) {
        path = directory.map { $0 + "/mqtt.position" }
    }

    /// The stored position; nil when there is none (first start) or it cannot be read.
    func load() throws(SystemError) -> UInt64? {
        guard let path, let text = try readTextFile(path, limit: 4096) else { return nil }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == "acked_seq", let seq = UInt64(parts[1]) { return seq }
        }
        return nil
    }

    /// Replaces the stored position with `seq`; `durable` also syncs it to the disk.
    func store(_ seq: UInt64, durable: Bool) throws(SystemError) {
        guard let path else { return }
        let text = "# blectld: the last reading the MQTT broker acknowledged (docs/mqtt.md)\nacked_seq \(seq)\n"
        try replaceTextFile(path, with: text, mode: 0o600, durable: durable)
    }
}
