import BlectlProtocol
import UnixSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The files of one store: the database, SQLite's `-wal` and `-shm` beside it, and the
/// store's lock file.
struct DatabaseFiles: Sendable {
    /// The database's name inside a state directory.
    static let defaultName = HistoryStore.fileName

    /// The database file.
    let path: String

    /// `path` itself, or ``defaultName`` inside it when it names a directory.
    init(resolving path: String) {
        var info = stat()
        let isDirectory = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
        self.path = isDirectory ? (path.hasSuffix("/") ? path : path + "/") + Self.defaultName : path
    }

    /// The lock file: held with `flock` while a store has the database open.
    var lockPath: String { path + ".lock" }
    var walPath: String { path + "-wal" }
    var shmPath: String { path + "-shm" }

    /// The directory the files live in.
    var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates the directory (and missing parents) with mode 0755; errors are left for
    /// the first file operation to report.
    func createDirectory() {
        var partial = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            partial += "/" + component
            mkdir(partial, 0o755)
        }
    }

    /// The bytes the database and its WAL take on disk.
    func bytesOnDisk() -> Int64 {
        [path, walPath].reduce(0) { total, file in
            var info = stat()
            return stat(file, &info) == 0 ? total + Int64(info.st_blocks) * 512 : total
        }
    }

    /// The bytes an unprivileged writer may still use on the database's file system.
    func freeBytes() -> Int64? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The file a schema rebuild writes before it takes the database's place.
    var upgradePath: String { path + ".upgrade" }

    /// Removes a rebuild's file and SQLite's files beside it; true when there was one.
    func removeUpgrade() -> Bool {
        let existed = access(upgradePath, F_OK) == 0
        for file in [upgradePath, upgradePath + "-wal", upgradePath + "-shm"] { unlink(file) }
        return existed
    }

    /// Puts the finished rebuild in the database's place: one `rename`, then the directory is
    /// synced so the new name survives a power cut. Before the rename the old file is the
    /// database, after it the new one; never a mix.
    func installUpgrade() throws(SystemError) {
        unlink(shmPath)
        guard rename(upgradePath, path) == 0 else { throw SystemError.current("rename(\(upgradePath), \(path))") }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError.current("open(\(directory))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SystemError.current("fsync(\(directory))") }
    }

    /// Renames the database and its WAL to `<path>.corrupt-<time>` (and `…-wal`), removes the
    /// `-shm`, and returns the new name. The pair stays readable with `sqlite3 … .recover`.
    func moveAside(at time: Timestamp) throws(SystemError) -> String {
        let stamp = String(time.rfc3339.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
        var aside = "\(path).corrupt-\(stamp)"
        var suffix = 2
        while access(aside, F_OK) == 0 {
            aside = "\(path).corrupt-\(stamp)-\(suffix)"
            suffix += 1
        }
        guard rename(path, aside) == 0 else { throw SystemError.current("rename(\(path), \(aside))") }
        if access(walPath, F_OK) == 0 { rename(walPath, aside + "-wal") }
        unlink(shmPath)
        return aside
    }
}
