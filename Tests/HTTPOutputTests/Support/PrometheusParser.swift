import Foundation

/// A metric family as Prometheus' own Python client parses it.
struct MetricFamily: Decodable {
    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var name: String
    var type: String
    var help: String
    var samples: [Sample]
}

/// Parses exposition text with `prometheus_client` (Debian's python3-prometheus-client,
/// through /usr/bin/python3): an independent parser of the format, which throws on
/// anything it does not accept. Runs on a dispatch thread: waiting for a process must not
/// hold one of Swift's few cooperative threads, which the output's responders need.
func parsePrometheus(_ text: String) async throws -> [String: MetricFamily] {
    try await offload { try runParser(text) }
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
        throw TestFailure("prometheus_client refused the text (install python3-prometheus-client): \(problem)")
    }
    let families = try JSONDecoder().decode([MetricFamily].self, from: data)
    return Dictionary(families.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
}
