import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Tests that need root (mounting a file system, another user's view of blectl): skipped
/// without it, except in CI, where a missing root is an error.
///
/// CI runs as root (and sets `CI`, as CI services do); a test that quietly skipped there would
/// hide that the check it makes never runs. Such a test is enabled with
/// `.enabled(if: RootRequirement.testRuns, …)` and calls ``check()`` first, so that in CI
/// without root it fails with the reason rather than showing as skipped.
public enum RootRequirement {
    /// Whether this process runs as root.
    public static var isRoot: Bool { geteuid() == 0 }

    /// Whether this is a CI run: `CI` set to anything but empty, `0` or `false`.
    public static let inCI: Bool = {
        guard let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() else { return false }
        return !["", "0", "false"].contains(value)
    }()

    /// Whether a test that needs root runs: as root, and always in CI (where ``check()``
    /// then fails it without root).
    public static var testRuns: Bool { isRoot || inCI }

    /// Throws unless running as root; reached without root only in CI.
    public static func check(_ why: String) throws {
        guard !isRoot else { return }
        throw TestSupportError("requires root (\(why)); in CI (CI is set) this is an error, not a skip")
    }
}
