import FoundationEssentials
import Glibc

/// One process's journal in `$XDG_STATE_HOME/hoist/journal/`: a snapshot,
/// `NAME.json`, and an append-only log of what happened since, `NAME.log`
/// (see `JournalRecord`); and the journals left by processes that are gone.
///
/// Each process holds an flock on its `NAME.lock` for as long as it lives.
/// The kernel drops the lock when the process dies, even by `kill -9`, so a
/// journal whose lock can be taken belongs to no one and may be adopted.
/// Files are 0600 and the folder 0700: a journal holds headers and fields,
/// tokens included, because resuming must send them again.
final class JournalStore: @unchecked Sendable {
    let directory: String
    let name: String
    private let lock: Int32
    /// The log, opened on the first append.
    private var log: Int32 = -1
    /// A log or snapshot may be on disk: written since the last `clear`.
    private var written = false

    var path: String { directory + "/" + name + ".json" }
    var logPath: String { directory + "/" + name + ".log" }

    static func defaultDirectory() -> String {
        XDG.directory("XDG_STATE_HOME", fallback: ".local/state") + "/hoist/journal"
    }

    init(directory: String = JournalStore.defaultDirectory()) throws(StateFileError) {
        try XDG.makePrivateDirectories(directory)
        self.directory = directory
        while true {
            let name = "\(getpid())-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let lockPath = directory + "/" + name + ".lock"
            let fd = open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0, errno == EEXIST { continue }
            guard fd >= 0 else { throw .errno("cannot create", lockPath) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                throw .errno("cannot lock", lockPath)
            }
            // A starting hoist may have taken the empty lock for an orphan's
            // and deleted it in the instant before ours: then pick another name.
            var held = stat()
            var named = stat()
            guard fstat(fd, &held) == 0, stat(lockPath, &named) == 0, held.st_ino == named.st_ino else {
                close(fd)
                continue
            }
            self.name = name
            lock = fd
            return
        }
    }

    deinit {
        if log >= 0 { close(log) }
        close(lock)
    }

    /// Appends records to the log, and returns once they are on disk: one
    /// `fdatasync` for all of them (the group commit), and for any written
    /// before without one. Called on one thread at a time.
    func append(_ bytes: [UInt8]) throws(StateFileError) {
        try write(bytes)
        guard fdatasync(log) == 0 else { throw .errno("cannot sync", logPath) }
    }

    /// Appends records to the log without waiting for the disk: the next
    /// `append` makes them durable.
    func write(_ bytes: [UInt8]) throws(StateFileError) {
        if log < 0 {
            log = open(logPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard log >= 0 else { throw .errno("cannot create", logPath) }
            written = true
            AtomicFile.syncFolder(of: logPath)  // the new file's name is durable too
        }
        try AtomicFile.writeAll(bytes, to: log, path: logPath)
    }

    /// Replaces the snapshot atomically (see `AtomicFile`), then empties the
    /// log it includes. A crash in between leaves both: replay skips the
    /// records the snapshot already holds, by their sequence numbers.
    func compact(_ snapshot: [UInt8]) throws(StateFileError) {
        written = true
        try AtomicFile.write(snapshot, to: path)
        guard log >= 0 else { return }
        guard ftruncate(log, 0) == 0, fdatasync(log) == 0 else { throw .errno("cannot truncate", logPath) }
    }

    /// Deletes the snapshot and the log while the process goes on: nothing is
    /// left to resume. Durably (the folder is synced): when the last task
    /// finishes, this stands for its "finished" record.
    func clear() {
        guard written else { return }
        written = false
        unlink(path)
        unlink(path + ".tmp")
        unlink(logPath)
        if log >= 0 { close(log) }
        log = -1
        AtomicFile.syncFolder(of: path)
    }

    /// Deletes the journal, then its lock: at exit, with nothing left.
    /// In that order, so a journal never outlives its lock file.
    func remove() {
        clear()
        unlink(directory + "/" + name + ".lock")
    }

    /// The journals whose process is gone, oldest first. Each stays locked
    /// by this process until it is discarded, so two hoists starting at once
    /// never adopt the same one.
    static func orphans(in directory: String, except own: String? = nil) -> [Orphan] {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let names = Set(
            files.compactMap { file in
                [".json", ".log", ".lock"].first(where: file.hasSuffix).map { String(file.dropLast($0.count)) }
            })
        var found: [(modified: Int, orphan: Orphan)] = []
        for name in names.sorted() where name != own {
            let lockPath = directory + "/" + name + ".lock"
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { continue }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)  // its process is alive
                continue
            }
            var info = stat()
            guard
                stat(directory + "/" + name + ".log", &info) == 0 || stat(directory + "/" + name + ".json", &info) == 0
            else {
                // Died before its first write: only the lock is left.
                unlink(lockPath)
                close(fd)
                continue
            }
            found.append((Int(info.st_mtim.tv_sec), Orphan(directory: directory, name: name, lock: fd)))
        }
        return found.sorted { $0.modified < $1.modified }.map(\.orphan)
    }
}

/// A journal left by a process that is gone, locked by this one.
final class Orphan: @unchecked Sendable {
    let directory: String
    let name: String
    private var lock: Int32

    var path: String { directory + "/" + name + ".json" }
    var logPath: String { directory + "/" + name + ".log" }

    init(directory: String, name: String, lock: Int32) {
        self.directory = directory
        self.name = name
        self.lock = lock
    }

    deinit { if lock >= 0 { close(lock) } }

    /// Its snapshot with its log replayed, or why it cannot be read.
    func read() throws(StateFileError) -> JournalDocument {
        let snapshot = FileManager.default.contents(atPath: path)
        let log = FileManager.default.contents(atPath: logPath)
        guard snapshot != nil || log != nil else { throw .errno("cannot read", path) }
        var document = JournalDocument(command: "send", pid: 0)
        if let snapshot {
            do {
                document = try JSONDecoder().decode(JournalDocument.self, from: snapshot)
            } catch let error as DecodingError {
                throw StateFileError("cannot read journal \(name).json: \(Self.reason(error))")
            } catch {
                throw StateFileError("cannot read journal \(name).json: \(error)")
            }
            guard JournalDocument.readableVersions.contains(document.version) else {
                throw StateFileError(
                    "cannot read journal \(name).json: it is version \(document.version); this hoist reads versions \(JournalDocument.readableVersions.map(String.init).joined(separator: " and "))"
                )
            }
        }
        if let log {
            do {
                try document.replay(log: log)
            } catch let error as DecodingError {
                throw StateFileError("cannot read journal \(name).log: \(Self.reason(error))")
            } catch {
                throw StateFileError("cannot read journal \(name).log: \(error)")
            }
        }
        return document
    }

    /// A short why, not DecodingError's dump.
    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty: return "it is not valid JSON (cut short?)"
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let at = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
            return "unexpected content at \(at.isEmpty ? "the top" : at)"
        @unknown default: return "\(error)"
        }
    }

    /// Deletes it, once what it held is safe in this process's journal.
    func discard() {
        unlink(path)
        unlink(path + ".tmp")
        unlink(logPath)
        unlink(directory + "/" + name + ".lock")
        AtomicFile.syncFolder(of: path)
        release()
    }

    /// Keeps only its staging area, for a later UI on that target: its tasks
    /// are safe in this process's journal by now. The snapshot replaces the
    /// log atomically; records the log still holds are at or below its
    /// sequence, so a crash before the log goes replays nothing twice.
    func keep(staged workspace: JournalWorkspace, of document: JournalDocument) throws {
        var kept = document
        kept.tasks = []
        kept.workspace = workspace
        try replace(with: kept)
    }

    /// Replaces it with `document`, what is left of it once this process
    /// took some of it (see `keep`), and lets it go.
    func replace(with document: JournalDocument) throws {
        try AtomicFile.write(Array(JSONEncoder().encode(document)), to: path)
        unlink(logPath)
        AtomicFile.syncFolder(of: path)
        release()
    }

    /// Renames an unreadable journal out of the way, never deleting it;
    /// returns where it went.
    func setAside() -> String {
        var kept = logPath + ".unreadable"
        rename(logPath, kept)
        if rename(path, path + ".unreadable") == 0 { kept = path + ".unreadable" }
        AtomicFile.syncFolder(of: path)
        unlink(directory + "/" + name + ".lock")
        release()
        return kept
    }

    private func release() {
        if lock >= 0 { close(lock) }
        lock = -1
    }
}
