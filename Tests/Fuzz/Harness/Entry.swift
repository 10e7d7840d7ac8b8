import Foundation

#if BLECTL_LIBFUZZER
    // Built by `make fuzz` (Tests/Fuzz/run.sh): libFuzzer's main calls these; the target
    // comes from BLECTL_FUZZ_TARGET.

    /// The target this process fuzzes.
    let selectedTarget: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["BLECTL_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget.named(name) else {
            FileHandle.standardError.write(
                Data("blectl-fuzz: set BLECTL_FUZZ_TARGET to one of: \(FuzzTarget.names)\n".utf8))
            exit(64)
        }
        return target
    }()

    /// Picks the target before libFuzzer starts, so that a wrong name fails at once.
    @_cdecl("LLVMFuzzerInitialize")
    public func fuzzerInitialize(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
    ) -> CInt {
        _ = selectedTarget
        return 0
    }

    /// Runs one input.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        _ = selectedTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
#else
    /// Without libFuzzer: runs saved inputs through a target (a crash input, a corpus), and
    /// writes the seed corpora.
    @main
    enum Replay {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            switch arguments.first {
            case "--list":
                for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
            case "--write-seeds" where arguments.count == 2:
                try writeSeeds(under: URL(fileURLWithPath: arguments[1]))
            case let name? where arguments.count >= 2:
                guard let target = FuzzTarget.named(name) else { usage() }
                let files = try arguments.dropFirst().flatMap(inputFiles)
                var refused = 0
                for file in files where !target.run(Array(try Data(contentsOf: file))) {
                    print("refused at once: \(file.lastPathComponent)")
                    refused += 1
                }
                print("blectl-fuzz: \(files.count) inputs through \(name), \(refused) refused at once, no failure")
            default:
                usage()
            }
        }

        /// Every file named, or in a directory named (not recursively).
        static func inputFiles(_ path: String) throws -> [URL] {
            let url = URL(fileURLWithPath: path)
            guard (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true else { return [url] }
            return try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
                .filter { !$0.lastPathComponent.hasPrefix(".") }.sorted { $0.path < $1.path }
        }

        static func writeSeeds(under directory: URL) throws {
            for (target, seeds) in try Seeds.all() {
                let folder = directory.appendingPathComponent(target)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for seed in seeds { try Data(seed.bytes).write(to: folder.appendingPathComponent("seed-\(seed.name)")) }
            }
        }

        static func usage() -> Never {
            FileHandle.standardError.write(
                Data(
                    """
                    usage: blectl-fuzz TARGET PATH...     run saved inputs (files, or every file of a directory);
                                                         it prints those refused at once (not a request,
                                                         reading, message… at all)
                           blectl-fuzz --list               the targets
                           blectl-fuzz --write-seeds DIR    write the seed corpora under DIR/TARGET/
                    targets: \(FuzzTarget.names)
                    Fuzzing itself is `make fuzz` (docs/testing.md).

                    """.utf8))
            exit(64)
        }
    }
#endif
