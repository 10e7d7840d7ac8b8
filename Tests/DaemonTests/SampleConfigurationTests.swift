@testable import Daemon
import Foundation
import Testing

/// `etc/blectld.conf`, the file `make install` puts in /etc: it documents every key, and
/// the values it shows commented out are the defaults.
@Suite("The sample configuration file")
struct SampleConfigurationTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../etc/blectld.conf").standardized.path

    /// The file's `# key = value` lines, uncommented.
    static func commentedSettings() throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard line.hasPrefix("# "), let equals = line.firstIndex(of: "=") else { return nil }
            let key = line.dropFirst(2)[..<equals].trimmingCharacters(in: .whitespaces)
            return ConfigurationSetting.named(key) == nil ? nil : String(line.dropFirst(2))
        }
    }

    @Test("Every key is documented")
    func everyKey() throws {
        let keys = try Self.commentedSettings().map { $0.split(separator: "=")[0].trimmingCharacters(in: .whitespaces) }
        #expect(Set(keys) == Set(ConfigurationSetting.all.map(\.key)))
    }

    @Test("Uncommenting every line is valid and changes nothing: the values shown are the defaults")
    func defaults() throws {
        var configuration = DaemonConfiguration()
        try configuration.apply(fileText: try Self.commentedSettings().joined(separator: "\n"), path: Self.path)
        #expect(configuration == DaemonConfiguration())
    }

    @Test("Every setting has the paragraph the documents carry, and a spelling of its default")
    func everySettingDocumented() {
        for setting in ConfigurationSetting.all {
            #expect(!(setting.details ?? "").isEmpty, "\(setting.key) has no details")
            #expect(setting.shown != nil, "\(setting.key) cannot spell its default")
        }
    }
}
