import Foundation

/// A metric family as Prometheus' own Python client parses it.
public struct MetricFamily: Decodable, Sendable {
    /// One sample.
    public struct Sample: Decodable, Sendable {
        /// The sample's name (a counter's ends in `_total`).
        public var name: String
        /// Its labels.
        public var labels: [String: String]
        /// Its value.
        public var value: Double
    }

    /// The family's name (a counter's without `_total`).
    public var name: String
    /// `gauge`, `counter`…
    public var type: String
    /// The HELP text.
    public var help: String
    /// The samples.
    public var samples: [Sample]
}

/// Parses exposition text with `prometheus_client` (Debian's python3-prometheus-client,
/// through /usr/bin/python3): an independent parser of the format, which throws on
/// anything it does not accept. Runs on a dispatch thread: waiting for a process must not
/// hold one of Swift's few cooperative threads, which the output's responders need.
public func parsePrometheus(_ text: String) async throws -> [String: MetricFamily] {
    try await onOwnThread { try runParser(text) }
}

private func runParser(_ text: String) throws -> [String: MetricFamily] {
    let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        families = [{"name": f.name, "type": f.type, "help": f.documentation,
                     "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
                    for f in text_string_to_metric_families(sys.stdin.read())]
        json.dump(families, sys.stdout)
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script]
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let problem = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TestSupportError("prometheus_client refused the text (install python3-prometheus-client): \(problem)")
    }
    let families = try JSONDecoder().decode([MetricFamily].self, from: data)
    return Dictionary(families.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
}
