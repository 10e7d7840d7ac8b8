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
/// anything it does not accept.
public func parsePrometheus(_ text: String) async throws -> [String: MetricFamily] {
    let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        with open(sys.argv[1], encoding="utf-8") as source:
            text = source.read()
        families = [{"name": f.name, "type": f.type, "help": f.documentation,
                     "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
                    for f in text_string_to_metric_families(text)]
        json.dump(families, sys.stdout)
        """
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try text.write(toFile: directory.file("metrics.txt"), atomically: false, encoding: .utf8)
    let parser = try await run(
        "/usr/bin/python3", ["-c", script, directory.file("metrics.txt")], timeout: .seconds(60))
    guard parser.status == 0 else {
        throw TestSupportError(
            "prometheus_client refused the text (install python3-prometheus-client): \(parser.errors)")
    }
    let families = try JSONDecoder().decode([MetricFamily].self, from: Data(parser.output.utf8))
    return Dictionary(families.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
}
