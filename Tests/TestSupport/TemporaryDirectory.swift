import Glibc

/// A fresh directory under /tmp, removed (with its files) by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let path: String

    /// Creates the directory.
    public init() {
        var template = Array("/tmp/blectl-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Removes the directory's files (one level: tests create no subdirectories) and itself.
    public func remove() {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                }
                if name != "." && name != ".." { unlink(file(name)) }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}
