import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small tmpfs of its own, and a read-only bind mount of it: a real full disk and a
/// real read-only file system. Needs root (CI and `make test` as root; ``RootRequirement``);
/// unmounted after.
public struct ScratchFileSystem: Sendable {
    /// Where the tmpfs is mounted (writable).
    public let writable: String
    /// The same files through a bind mount that starts read-only.
    public let readOnly: String

    /// Runs `body` with a tmpfs of `sizeBytes` and its read-only bind mount, unmounted and
    /// removed after, whatever happens.
    public static func with(sizeBytes: Int, _ body: (ScratchFileSystem) async throws -> Void) async throws {
        try RootRequirement.check("to mount a tmpfs")
        let base = "/tmp/blectl-fs-\(UUID().uuidString.prefix(8))"
        let fs = ScratchFileSystem(writable: base + "/rw", readOnly: base + "/ro")
        for directory in [fs.writable, fs.readOnly] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        defer {
            umount2(fs.readOnly, Int32(MNT_DETACH))
            umount2(fs.writable, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(atPath: base)
        }
        try call("mount tmpfs", mount("tmpfs", fs.writable, "tmpfs", 0, "size=\(sizeBytes),mode=0755"))
        try call("bind mount", mount(fs.writable, fs.readOnly, nil, UInt(MS_BIND), nil))
        try fs.setReadOnly(true)
        try await body(fs)
    }

    /// Changes the tmpfs's size: shrinking it leaves its files, growing it makes room.
    public func resize(to sizeBytes: Int) throws {
        try Self.call("resize tmpfs", mount(nil, writable, nil, UInt(MS_REMOUNT), "size=\(sizeBytes)"))
    }

    /// Makes the bind mount read-only or writable.
    public func setReadOnly(_ readOnly: Bool) throws {
        let flags = UInt(MS_REMOUNT) | UInt(MS_BIND) | (readOnly ? UInt(MS_RDONLY) : 0)
        try Self.call("remount bind", mount(nil, self.readOnly, nil, flags, nil))
    }

    private static func call(_ what: String, _ result: Int32) throws {
        if result != 0 { throw TestSupportError("\(what): \(String(cString: strerror(errno)))") }
    }
}
