#if canImport(Glibc)
    import Glibc
#endif

/// Removing a directory with everything in it (a temporary one, made by this process).
public enum DirectoryTree {
    /// Removes `path` and everything below it; symbolic links are removed, not followed.
    /// Errors are ignored: this cleans up after ourselves, and there is nobody to tell.
    public static func remove(_ path: String) {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) {
                    String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                }
                guard name != ".", name != ".." else { continue }
                let child = path + "/" + name
                if entry.pointee.d_type == UInt8(DT_DIR) {
                    remove(child)
                } else {
                    unlink(child)
                }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}
