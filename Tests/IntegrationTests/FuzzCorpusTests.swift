import Foundation
import TestSupport
import Testing

/// The fuzz targets' committed inputs, through the ordinary build's `blectl-fuzz` (a replayer):
/// every crash the fuzzer found stays fixed, and the seeds still reach the code they seed.
@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    /// `Tests/Fuzz`.
    static let fuzzDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")
    static let targets = ["protocol", "gatt", "advertisements", "config", "dbus", "bluez"]

    static func replay(_ target: String, _ folder: String) async throws -> (
        status: Int32, refused: Set<String>, log: String
    ) {
        let path = fuzzDirectory.appendingPathComponent(folder).appendingPathComponent(target).path
        let (status, output, errors) = try await run(DaemonFixture.binary("blectl-fuzz"), [target, path])
        let refused = output.split(separator: "\n").compactMap { line in
            line.hasPrefix("refused at once: ") ? String(line.dropFirst("refused at once: ".count)) : nil
        }
        return (status, Set(refused), output + errors)
    }

    @Test("every target has seeds, and every seed folder is a target")
    func targetsHaveSeeds() async throws {
        let listed = try await run(DaemonFixture.binary("blectl-fuzz"), ["--list"]).output
        #expect(listed.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) } == Self.targets)
        let folders = try FileManager.default.contentsOfDirectory(
            atPath: Self.fuzzDirectory.appendingPathComponent("corpus").path)
        #expect(Set(folders) == Set(Self.targets))
    }

    @Test("seeds go through their target; only those named refused-… are refused at once", arguments: targets)
    func seeds(_ target: String) async throws {
        let (status, refused, log) = try await Self.replay(target, "corpus")
        #expect(status == 0, "\(log)")
        let seeds = try FileManager.default.contentsOfDirectory(
            atPath: Self.fuzzDirectory.appendingPathComponent("corpus/\(target)").path)
        #expect(refused == Set(seeds.filter { $0.hasPrefix("seed-refused-") }), "\(log)")
    }

    /// The targets with crash inputs (`Tests/Fuzz/regressions/TARGET`): only those the fuzzer
    /// found a crash in have a folder.
    static let regressionTargets =
        (try? FileManager.default.contentsOfDirectory(
            atPath: fuzzDirectory.appendingPathComponent("regressions").path
        ).sorted()) ?? []

    @Test("every crash input found so far goes through its target", arguments: regressionTargets)
    func regressions(_ target: String) async throws {
        let folder = Self.fuzzDirectory.appendingPathComponent("regressions/\(target)").path
        #expect(Self.targets.contains(target), "regressions/\(target) is no fuzz target")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder).count
        #expect(inputs > 0, "\(folder) is empty")
        let (status, _, log) = try await Self.replay(target, "regressions")
        #expect(status == 0, "\(log)")
        #expect(log.contains("\(inputs) inputs through \(target)"), "every input replayed: \(log)")
    }

    @Test("there are crash inputs to replay")
    func regressionsExist() {
        #expect(!Self.regressionTargets.isEmpty, "Tests/Fuzz/regressions has no target folder")
    }
}
