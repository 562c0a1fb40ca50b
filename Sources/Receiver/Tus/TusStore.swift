import FoundationEssentials
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tus uploads: a table in memory, and on disk in `<directory>/.tus/` as `ID` (the bytes so far) and
/// `ID.json` (a ``TusUpload``). A complete upload's bytes move into the directory under their metadata
/// filename; its JSON stays, so a HEAD still tells the client it is done.
///
/// One request at a time may change an upload: ``acquire(_:)`` marks it busy until ``release(_:)``.
final class TusStore: Sendable {
    enum Acquired {
        case upload(TusUpload)
        case missing
        /// Another request kept it busy for longer than ``lockWait``.
        case busy
    }

    /// How long a request waits for an upload another request is writing. A client that lost its
    /// connection often comes back before the receiver noticed; it should get the offset, not an error.
    static let lockWait: Duration = .seconds(3)
    /// More unfinished uploads than this and creation answers 503.
    static let maxUnfinished = 10_000

    private struct Slot {
        var upload: TusUpload
        var busy: Bool
    }

    let root: String
    let directory: UploadDirectory
    private let table = NIOLockedValueBox<[String: Slot]>([:])

    init(directory: UploadDirectory) {
        self.directory = directory
        self.root = directory.path + "/.tus"
    }

    func dataPath(_ id: String) -> String { root + "/" + id }
    private func infoPath(_ id: String) -> String { root + "/" + id + ".json" }

    /// Reads the uploads an earlier run left, when there are any. Unreadable ones are skipped.
    func load() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        var found: [String: Slot] = [:]
        for name in names where name.hasSuffix(".json") {
            let id = String(name.dropLast(".json".count))
            guard UploadID.isValid(id), let data = FileManager.default.contents(atPath: infoPath(id)),
                var upload = try? JSONDecoder().decode(TusUpload.self, from: data), upload.id == id
            else { continue }
            if upload.savedAs != nil {
                upload.offset = upload.length ?? 0
            } else {
                var info = stat()
                guard stat(dataPath(id), &info) == 0 else { continue }
                upload.offset = min(Int64(info.st_size), upload.length ?? .max)
            }
            found[id] = Slot(upload: upload, busy: false)
        }
        table.withLockedValue { $0.merge(found) { current, _ in current } }
    }

    /// Creates the upload's empty data file and its JSON; the new upload is busy (held by the caller).
    func create(_ upload: TusUpload) throws(ReceiverError) {
        if mkdir(root, 0o700) != 0, errno != EEXIST {
            throw .saveFailed("cannot create \(root): \(UploadDirectory.describeErrno())")
        }
        // Never follow a link someone put in its place.
        var info = stat()
        guard lstat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .saveFailed("\(root) is not a directory: move it away so the receiver can keep tus uploads there")
        }
        let fd = open(dataPath(upload.id), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .saveFailed("cannot create \(dataPath(upload.id)): \(UploadDirectory.describeErrno())")
        }
        close(fd)
        do throws(ReceiverError) {
            try save(upload)
        } catch {
            unlink(dataPath(upload.id))
            throw error
        }
        table.withLockedValue { $0[upload.id] = Slot(upload: upload, busy: true) }
    }

    /// Uploads not complete yet: each holds a file, so a client may not open them without end.
    var unfinishedCount: Int {
        table.withLockedValue { $0.values.count { $0.upload.savedAs == nil } }
    }

    /// Writes the upload's JSON (atomically: a half-written file would lose the upload on restart).
    func save(_ upload: TusUpload) throws(ReceiverError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(upload).write(to: URL(fileURLWithPath: infoPath(upload.id)), options: .atomic)
        } catch {
            throw .saveFailed("cannot write \(infoPath(upload.id)): \(error)")
        }
    }

    /// The upload as it is now, busy or not (a HEAD does not wait).
    func snapshot(_ id: String) -> TusUpload? {
        table.withLockedValue { $0[id]?.upload }
    }

    /// Marks the upload busy, waiting up to ``lockWait`` while another request holds it.
    func acquire(_ id: String) async -> Acquired {
        let deadline = ContinuousClock.now + Self.lockWait
        while true {
            let result: Acquired = table.withLockedValue { table in
                guard let slot = table[id] else { return .missing }
                guard !slot.busy else { return .busy }
                table[id]!.busy = true
                return .upload(slot.upload)
            }
            guard case .busy = result, ContinuousClock.now < deadline else { return result }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Forgets the unfinished uploads past their `expires` that no request holds.
    func removeExpired(at now: Date) {
        let expired = table.withLockedValue { table in
            table.values.filter { !$0.busy && $0.upload.isExpired(at: now) }.map(\.upload.id)
        }
        expired.forEach(remove)
    }

    /// Shows progress while a PATCH is being written, so a HEAD sees the bytes already on disk.
    func setOffset(_ id: String, _ offset: Int64) {
        table.withLockedValue { $0[id]?.upload.offset = offset }
    }

    /// Stores the upload's new state and frees it for the next request.
    func release(_ upload: TusUpload) {
        table.withLockedValue { table in
            guard table[upload.id] != nil else { return }
            table[upload.id] = Slot(upload: upload, busy: false)
        }
    }

    /// Forgets the upload and removes its bytes and JSON (not a file it was saved as).
    func remove(_ id: String) {
        table.withLockedValue { _ = $0.removeValue(forKey: id) }
        unlink(dataPath(id))
        unlink(infoPath(id))
    }

    /// Moves a complete upload's bytes into the directory under its sanitised metadata filename (suffixed
    /// when taken) and returns that name; two uploads finishing at once never take the same name.
    func moveIntoDirectory(_ upload: TusUpload) throws(ReceiverError) -> String {
        try directory.adopt(dataPath(upload.id), as: upload.metadata.filename)
    }
}
