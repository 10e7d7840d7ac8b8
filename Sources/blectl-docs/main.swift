// blectl-docs: the lists of formats and blectld's settings in the documents, written from the
// code that declares them (AdvertisementRegistry.standard and each profile's SensorFamily,
// blectl-mock's MockAdvertiser.Format, the settings tables), so that adding a format or a
// setting edits no document by hand.
//
//   blectl-docs [--root DIR] --write   rewrite every generated region in place (make docs)
//   blectl-docs [--root DIR] --check   exit 1 naming each stale region (IntegrationTests runs it)
//
// The regions are in README.md, docs/*.md, man/*.scd and etc/* (Region.swift has the
// markers, FormatLists.swift what each kind of region holds, SettingsText.swift the settings).
// Never installed.
import Foundation

/// What the command line asks for.
struct Invocation {
    var root = FileManager.default.currentDirectoryPath
    var write = false

    init(_ arguments: [String]) throws(DocsError) {
        var rest = arguments[...]
        var mode: Bool?
        while let argument = rest.popFirst() {
            switch argument {
            case "--write": mode = true
            case "--check": mode = false
            case "--root":
                guard let root = rest.popFirst() else { throw DocsError("--root needs a directory") }
                self.root = root
            default: throw DocsError("unknown argument '\(argument)'")
            }
        }
        guard let mode else { throw DocsError("usage: blectl-docs [--root DIR] --write | --check") }
        write = mode
    }
}

/// The documents that may hold regions, relative to the root.
func documents(under root: String) -> [String] {
    let files = FileManager.default
    var paths = ["README.md"]
    for (directory, suffix) in [("docs", ".md"), ("man", ".scd"), ("etc", "")] {
        let names = (try? files.contentsOfDirectory(atPath: "\(root)/\(directory)")) ?? []
        paths += names.filter { $0.hasSuffix(suffix) }.sorted().map { "\(directory)/\($0)" }
    }
    return paths.filter { files.fileExists(atPath: "\(root)/\($0)") }
}

do {
    let invocation = try Invocation(Array(CommandLine.arguments.dropFirst()))
    var problems = SettingsText.undocumented().map { "setting \($0) has no details: document it in its table" }
    for path in documents(under: invocation.root) {
        let fullPath = "\(invocation.root)/\(path)"
        guard let text = try? String(contentsOfFile: fullPath, encoding: .utf8) else { continue }
        let document = try Document(text: text, style: DocumentStyle(path: path), path: path)
        problems += document.handWrittenProblems()
        let current = document.rewritten()
        guard current != text else { continue }
        if invocation.write {
            try current.write(toFile: fullPath, atomically: true, encoding: .utf8)
            print("rewrote \(path)")
        } else {
            problems += document.staleRegions().map { "\(path): region formats:\($0) is stale: run `make docs`" }
        }
    }
    for problem in problems { FileHandle.standardError.write(Data("blectl-docs: \(problem)\n".utf8)) }
    exit(problems.isEmpty ? 0 : 1)
} catch let error as DocsError {
    FileHandle.standardError.write(Data("blectl-docs: \(error.message)\n".utf8))
    exit(64)
}
