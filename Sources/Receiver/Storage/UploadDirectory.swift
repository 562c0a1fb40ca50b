#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folder saved files go to. Creates each file with O_CREAT|O_EXCL, so two uploads of the same
/// name, even at the same moment, get `photo.jpg` and `photo-1.jpg` and never overwrite each other.
/// Files are created relative to the folder's own descriptor (`openat`, `linkat`) under a name with
/// no `/` and with O_NOFOLLOW: no path is resolved through a link a client or a user planted there.
struct UploadDirectory: Sendable {
    let path: String
    static let maxSuffix = 10_000

    /// Creates `path` and its parents when missing.
    func create() throws(ReceiverError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw .saveFailed("cannot create directory \(current): \(Self.describeErrno())")
            }
        }
    }

    /// Opens a new file named after the client's `filename` (sanitised, suffixed when taken).
    func createFile(for filename: String?) throws(ReceiverError) -> UploadSink {
        var fd: Int32 = -1
        let (fullPath, candidate) = try firstFreeName(for: filename) { folder, name in
            fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            return fd >= 0
        }
        return UploadSink(fd: fd, path: fullPath, savedAs: candidate)
    }

    /// Moves a finished file (in the same file system) in under `filename`,
    /// sanitised and suffixed when taken, and returns the name it got. A hard
    /// link claims the name atomically (EEXIST when taken); renaming over a
    /// placeholder instead would make ext4 write the whole file out first.
    func adopt(_ existing: String, as filename: String?) throws(ReceiverError) -> String {
        let (_, candidate) = try firstFreeName(for: filename) { folder, name in
            linkat(AT_FDCWD, existing, folder, name, 0) == 0
        }
        unlink(existing)
        return candidate
    }

    /// Tries `claim` (the folder's descriptor, a name in it) on each numbered name until one
    /// succeeds; any error but EEXIST ends it.
    private func firstFreeName(
        for filename: String?, _ claim: (Int32, String) -> Bool
    ) throws(ReceiverError) -> (path: String, name: String) {
        let name = FileNameSanitizer.sanitize(filename)
        guard !name.unicodeScalars.contains("/"), name != ".", name != ".." else {
            throw .saveFailed("refused the file name \(name)")
        }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw .saveFailed("cannot open the upload folder: \(Self.describeErrno())") }
        defer { close(folder) }
        for n in 0..<Self.maxSuffix {
            let candidate = FileNameSanitizer.numbered(name, n)
            let fullPath = path + "/" + candidate
            if claim(folder, candidate) { return (fullPath, candidate) }
            if errno != EEXIST {
                throw .saveFailed("cannot create \(candidate): \(Self.describeErrno())")
            }
        }
        throw .saveFailed("cannot create \(name): \(Self.maxSuffix) files of that name exist already")
    }

    static func describeErrno(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
