import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sessions and objects of the Cloud Storage endpoint.
///
/// Layout: an unfinished session's bytes are `DIR/.gcs/UPLOAD_ID`; a finished object is
/// `DIR/BUCKET/NAME`, where NAME is the object name cleaned by ``FileNameSanitizer`` (its last `/`
/// segment, so `../x` is saved as `x`), suffixed `-1`, `-2`... when taken: a second upload of a name
/// (a new generation) never overwrites the first file. Which file is which object's latest generation
/// is kept in memory, like the sessions: a restart forgets them, and a client starts its uploads again.
/// One request at a time may change a session: ``acquire(_:)`` marks it busy until ``release(_:)``.
final class GCSStore: Sendable {
    enum Acquired {
        case session(GCSSession)
        case missing
        /// Another request kept it busy for longer than ``lockWait``.
        case busy
    }

    private struct Key: Hashable {
        var bucket: String
        var name: String
    }

    private struct Slot {
        var session: GCSSession
        var busy: Bool
    }

    /// A client whose connection broke often asks again before the receiver noticed; it should get the
    /// state once the old request let go, not an error.
    static let lockWait: Duration = .seconds(3)
    /// More unfinished sessions than this and initiation answers 503: each holds a file.
    static let maxUnfinished = 10_000

    let directory: UploadDirectory
    let root: String
    private let sessions = NIOLockedValueBox<[String: Slot]>([:])
    private let objects = NIOLockedValueBox<[Key: GCSObject]>([:])

    init(directory: UploadDirectory) {
        self.directory = directory
        self.root = directory.path + "/.gcs"
    }

    func dataPath(_ id: String) -> String { root + "/" + id }

    /// Creates the session's empty data file; the new session is busy (held by the caller).
    func create(_ session: GCSSession) throws(ReceiverError) {
        if mkdir(root, 0o700) != 0, errno != EEXIST {
            throw .saveFailed("cannot create \(root): \(UploadDirectory.describeErrno())")
        }
        var info = stat()
        guard lstat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .saveFailed("\(root) is not a directory: move it away so the receiver can keep uploads there")
        }
        let fd = open(dataPath(session.id), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .saveFailed("cannot create \(dataPath(session.id)): \(UploadDirectory.describeErrno())")
        }
        close(fd)
        sessions.withLockedValue { $0[session.id] = Slot(session: session, busy: true) }
    }

    var unfinishedCount: Int {
        sessions.withLockedValue { $0.values.count { $0.session.object == nil } }
    }

    /// The session as it is now, busy or not.
    func snapshot(_ id: String) -> GCSSession? {
        sessions.withLockedValue { $0[id]?.session }
    }

    /// Marks the session busy, waiting up to ``lockWait`` while another request holds it.
    func acquire(_ id: String) async -> Acquired {
        let deadline = ContinuousClock.now + Self.lockWait
        while true {
            let result: Acquired = sessions.withLockedValue { table in
                guard let slot = table[id] else { return .missing }
                guard !slot.busy else { return .busy }
                table[id]!.busy = true
                return .session(slot.session)
            }
            guard case .busy = result, ContinuousClock.now < deadline else { return result }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stores the session's new state and frees it for the next request.
    func release(_ session: GCSSession) {
        sessions.withLockedValue { table in
            guard table[session.id] != nil else { return }
            table[session.id] = Slot(session: session, busy: false)
        }
    }

    /// Forgets the session and removes its unfinished bytes (not an object it became).
    func remove(_ id: String) {
        sessions.withLockedValue { _ = $0.removeValue(forKey: id) }
        unlink(dataPath(id))
    }

    func object(bucket: String, name: String) -> GCSObject? {
        objects.withLockedValue { $0[Key(bucket: bucket, name: name)] }
    }

    /// Moves a finished session's bytes to `DIR/BUCKET/` and makes them the name's latest generation;
    /// returns the file name they got.
    func publish(_ session: GCSSession, as object: GCSObject) throws(ReceiverError) -> String {
        let folder = try bucketFolder(session.bucket, creating: true)
        defer { close(folder) }
        let name = FileNameSanitizer.sanitize(session.name)
        for n in 0..<UploadDirectory.maxSuffix {
            let candidate = FileNameSanitizer.numbered(name, n)
            // A hard link claims the name atomically and never follows a link planted there.
            if linkat(AT_FDCWD, dataPath(session.id), folder, candidate, 0) == 0 {
                unlink(dataPath(session.id))
                var object = object
                object.savedAs = candidate
                objects.withLockedValue { $0[Key(bucket: object.bucket, name: object.name)] = object }
                return candidate
            }
            guard errno == EEXIST else {
                throw .saveFailed("cannot save \(session.bucket)/\(candidate): \(UploadDirectory.describeErrno())")
            }
        }
        throw .saveFailed("cannot save \(name): \(UploadDirectory.maxSuffix) files of that name exist already")
    }

    /// Opens an object's file for reading, through no link; the caller closes it.
    func openForReading(_ object: GCSObject) throws(ReceiverError) -> Int32 {
        let folder = try bucketFolder(object.bucket, creating: false)
        defer { close(folder) }
        let fd = openat(folder, object.savedAs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw .saveFailed("cannot open \(object.bucket)/\(object.savedAs): \(UploadDirectory.describeErrno())")
        }
        return fd
    }

    /// The bucket's folder inside the upload folder, opened relative to it and never through a link.
    private func bucketFolder(_ bucket: String, creating: Bool) throws(ReceiverError) -> Int32 {
        let top = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard top >= 0 else { throw .saveFailed("cannot open the upload folder: \(UploadDirectory.describeErrno())") }
        defer { close(top) }
        if creating, mkdirat(top, bucket, 0o755) != 0, errno != EEXIST {
            throw .saveFailed("cannot create the folder \(bucket): \(UploadDirectory.describeErrno())")
        }
        let folder = openat(top, bucket, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else {
            throw .saveFailed("cannot open the folder \(bucket): \(UploadDirectory.describeErrno())")
        }
        return folder
    }
}
