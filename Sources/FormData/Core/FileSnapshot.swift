import Glibc

/// What stat said about a file before sending: enough to notice, while
/// streaming, that it was truncated, grown, replaced or rewritten.
public struct FileSnapshot: Sendable, Hashable, Codable {
    public let size: Int64
    public let device: UInt64
    public let inode: UInt64
    public let modifiedSeconds: Int64
    public let modifiedNanoseconds: Int64

    init(_ info: stat) {
        size = Int64(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    }

    /// The file at `path` as stat sees it now, or `nil` when it cannot be stat'ed.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    /// How a file can differ from its snapshot, most telling first.
    public enum Difference: Sendable, Equatable {
        case replaced
        case resized(from: Int64, to: Int64)
        case modified
    }

    /// How `now` differs from this snapshot, or `nil` when it does not.
    public func difference(to now: FileSnapshot) -> Difference? {
        if now.device != device || now.inode != inode { return .replaced }
        if now.size != size { return .resized(from: size, to: now.size) }
        if now.modifiedSeconds != modifiedSeconds || now.modifiedNanoseconds != modifiedNanoseconds { return .modified }
        return nil
    }

    /// Why `now` differs from this snapshot, said for an upload under way;
    /// `nil` when it does not.
    public func change(to now: FileSnapshot) -> String? {
        switch difference(to: now) {
        case nil: return nil
        case .replaced: return "it was replaced by another file"
        case .resized(let then, let now):
            return "its size was \(then) bytes when the upload was prepared and is now \(now) bytes"
        case .modified: return "it was modified during the upload"
        }
    }
}

/// The checks done before any byte is produced. Each maps errno to a typed error.
enum FileChecks {
    enum Kind {
        case regular, directory, fifo, characterDevice
        case other(String)
    }

    static func kind(of info: stat) -> Kind {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFSOCK: return .other("a socket")
        case S_IFBLK: return .other("a block device")
        default: return .other("not a file")
        }
    }

    static func status(path: String, field: String) throws(FormDataError) -> stat {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw openError(errno, field: field, path: path)
        }
        return info
    }

    /// A regular, readable file; returns its snapshot. The file is opened
    /// and closed to prove it is readable (access() is wrong for root and setuid).
    static func regularFile(path: String, field: String) throws(FormDataError) -> FileSnapshot {
        let info = try status(path: path, field: field)
        switch kind(of: info) {
        case .regular: break
        case .directory: throw .isDirectory(field: field, path: path)
        case .fifo: throw .notRegularFile(field: field, path: path, kind: "a FIFO")
        case .characterDevice: throw .notRegularFile(field: field, path: path, kind: "a character device")
        case .other(let what): throw .notRegularFile(field: field, path: path, kind: what)
        }
        let fd = try open(path: path, field: field)
        defer { close(fd) }
        var now = stat()
        guard fstat(fd, &now) == 0 else { throw openError(errno, field: field, path: path) }
        return FileSnapshot(now)
    }

    /// A path to stream: a FIFO, character device or regular file, not a directory.
    /// FIFOs are not opened here, since opening one blocks until a writer appears.
    static func streamablePath(path: String, field: String) throws(FormDataError) {
        let info = try status(path: path, field: field)
        switch kind(of: info) {
        case .regular: _ = try regularFile(path: path, field: field)
        case .fifo, .characterDevice:
            if access(path, R_OK) != 0 { throw openError(errno, field: field, path: path) }
        case .directory: throw .isDirectory(field: field, path: path)
        case .other(let what): throw .notRegularFile(field: field, path: path, kind: what)
        }
    }

    static func open(path: String, field: String, flags: Int32 = 0) throws(FormDataError) -> Int32 {
        while true {
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | flags)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw openError(errno, field: field, path: path)
        }
    }

    static func openError(_ code: Int32, field: String, path: String) -> FormDataError {
        switch code {
        case ENOENT, ENOTDIR: return .fileNotFound(field: field, path: path)
        case EACCES, EPERM: return .permissionDenied(field: field, path: path)
        case EISDIR: return .isDirectory(field: field, path: path)
        default: return .cannotOpen(field: field, path: path, reason: errorText(code))
        }
    }
}

func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

extension FileSnapshot {
    /// Checks that `path` is a regular, readable file, as the encoder will
    /// before sending, so a UI can name a bad file when it is staged.
    public static func regularFile(path: String, field: String) throws(FormDataError) -> FileSnapshot {
        try FileChecks.regularFile(path: path, field: field)
    }
}
