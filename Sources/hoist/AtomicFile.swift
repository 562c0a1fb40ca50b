import Glibc

/// Replacing a file so that a crash at any moment leaves the old contents or
/// the new, never a mix: a temporary file beside it, fsync, rename over the
/// old one, fsync of the folder. Used for the journal and the profiles file.
/// The temporary file has a new random name, created with `O_EXCL` (so a
/// link planted there is refused, never followed) and mode 0600 (so a
/// leftover's mode is never inherited).
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: String) throws(StateFileError) {
        var (temporary, fd) = ("", Int32(-1))
        for _ in 0..<8 where fd < 0 {
            temporary = path + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0, errno != EEXIST { break }
        }
        guard fd >= 0 else { throw .errno("cannot create", temporary) }
        do {
            try writeAll(bytes, to: fd, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        guard fsync(fd) == 0 else {
            let error = StateFileError.errno("cannot sync", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = StateFileError.errno("cannot rename to", path)
            unlink(temporary)
            throw error
        }
        syncFolder(of: path)
    }

    /// Writes every byte, retrying short writes and EINTR.
    static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(StateFileError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw .errno("cannot write", path) }
            done += n
        }
    }

    /// The folder that holds `path`: `/a` for `/a/b`, `/` for `/b`, `.` for `b`.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Makes a rename or unlink in the file's folder durable.
    static func syncFolder(of path: String) {
        let fd = open(folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

/// An exclusive `flock` on a lock file beside a file that is read, changed
/// and replaced (its own inode changes with each rename, so it cannot hold
/// the lock). Waits for another Hoist holding it.
final class FileLock {
    private let fd: Int32

    init(_ path: String) throws(StateFileError) {
        fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .errno("cannot open the lock", path) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let error = StateFileError.errno("cannot lock", path)
                close(fd)
                throw error
            }
        }
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
