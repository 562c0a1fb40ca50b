import Dispatch
import FormData
import Foundation
import Synchronization
import TestSupport
import Testing
import UploadPlan

@testable import TerminalUI
@testable import UploadEngine
@testable import hoist

// MARK: - A fourth transfer kind, whole in this file

/// "ledger", a made-up resumable protocol: the server keeps uploads by ID;
/// a client creates one, asks how many bytes it holds, appends at that
/// offset, and may delete it. Everything the kind needs is below, and the
/// engine, the journal and the UI take it with no change outside this file:
/// the proof that a kind is one folder and one registration line.
struct LedgerSettings: TransferKind {
    static let kind = "ledger"
    static let checkpoints: [any CheckpointState.Type] = [LedgerCheckpoint.self]

    /// Which `LedgerServer` (its name).
    var server: String
    var chunkSize: Int

    func makeDriver() -> any TransferDriver { LedgerDriver() }
}

struct LedgerCheckpoint: CheckpointState {
    static let name = "ledger"
    var uploadID: String
    var offset: Int64
    var length: Int64

    var knownLength: Int64? { length }
    var uploadURL: String { uploadID }
    var summary: String { "ledger upload \(uploadID)" }
}

/// The driver: on the engine's queue, it creates the upload or asks the
/// server what it holds, appends chunk after chunk, and saves a checkpoint
/// after each. Retries, backoff, cancel, the journal and the bar are the
/// engine's.
final class LedgerDriver: TransferDriver {
    var upload: LedgerCheckpoint?
    var abandoned: LedgerCheckpoint?

    var holdsUpload: Bool { upload != nil }

    func start(_ id: TaskID, attempt number: Int, on engine: UploadEngine) {
        guard let record = engine.records[id], let settings = record.sending.transfer.settings(as: LedgerSettings.self),
            case .rawFile(let path, _) = record.sending.body, let server = LedgerServer.named(settings.server)
        else { return engine.finishResumable(id, attempt: number, .failure(.other("not a ledger task")), offset: 0) }
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            return engine.finishResumable(id, attempt: number, .failure(.other("cannot read \(path)")), offset: 0)
        }
        if let abandoned { server.delete(abandoned.uploadID) }
        abandoned = nil
        if upload == nil { upload = record.snapshot.checkpoint?.state(as: LedgerCheckpoint.self) }
        engine.beginResumable(record, attempt: number, totalBytes: Int64(bytes.count), offset: upload?.offset ?? 0)
        network(engine) { [upload] in
            // Ask what the server holds: a cut append may have left part of its bytes.
            if let upload, let held = server.offset(upload.uploadID) {
                return LedgerCheckpoint(uploadID: upload.uploadID, offset: held, length: upload.length)
            }
            return LedgerCheckpoint(uploadID: server.create(), offset: 0, length: Int64(bytes.count))
        } then: { result in
            guard engine.isCurrent(id, attempt: number), let record = engine.records[id] else { return }
            switch result {
            case .success(let upload):
                self.upload = upload
                if upload.offset > 0 { record.snapshot.resumedFrom = upload.offset }
                engine.saveCheckpoint(TransferCheckpoint(upload), of: record, sent: upload.offset)
                self.append(bytes, server: server, chunk: settings.chunkSize, id, attempt: number, on: engine)
            case .failure(let failure):
                engine.finishResumable(id, attempt: number, .failure(failure), offset: 0)
            }
        }
    }

    private func append(
        _ bytes: [UInt8], server: LedgerServer, chunk: Int, _ id: TaskID, attempt number: Int, on engine: UploadEngine
    ) {
        guard let upload else { return }
        let offset = Int(upload.offset)
        guard offset < bytes.count else {
            let answer = UploadResponse(
                status: 201, headers: [], elapsed: .zero, body: [], bodyBytesReceived: 0, content: .empty)
            return engine.finishResumable(id, attempt: number, .success(answer), offset: upload.offset)
        }
        let piece = Array(bytes[offset..<min(bytes.count, offset + chunk)])
        network(engine) { () throws(UploadFailure) in
            try server.append(upload.uploadID, at: upload.offset, piece)
        } then: { result in
            guard engine.isCurrent(id, attempt: number), let record = engine.records[id] else { return }
            switch result {
            case .success(let held):
                self.upload?.offset = held
                engine.saveCheckpoint(TransferCheckpoint(self.upload!), of: record, sent: held)
                self.append(bytes, server: server, chunk: chunk, id, attempt: number, on: engine)
            case .failure(let failure):
                engine.finishResumable(id, attempt: number, .failure(failure), offset: upload.offset)
            }
        }
    }

    /// Off the engine's queue as a network exchange is, and back on it with the answer.
    private func network<T: Sendable>(
        _ engine: UploadEngine, _ exchange: @escaping @Sendable () throws(UploadFailure) -> T,
        then answer: @escaping (Result<T, UploadFailure>) -> Void
    ) {
        nonisolated(unsafe) let answer = answer
        DispatchQueue.global().async {
            let result = Result { () throws(UploadFailure) in try exchange() }
            engine.queue.async { answer(result) }
        }
    }

    func discard(_ record: TaskRecord, on engine: UploadEngine) {
        guard let upload, let settings = record.sending.transfer.settings(as: LedgerSettings.self) else { return }
        LedgerServer.named(settings.server)?.delete(upload.uploadID)
        self.upload = nil
        record.snapshot.checkpoint = nil
    }

    func finallyFailed(_ record: TaskRecord, on engine: UploadEngine) -> String? {
        guard upload != nil else { return nil }
        discard(record, on: engine)
        return "the ledger upload was deleted"
    }

    func abandon(_ checkpoint: TransferCheckpoint) {
        abandoned = checkpoint.state(as: LedgerCheckpoint.self)
    }
}

/// The server side of "ledger", in memory, with faults on demand.
final class LedgerServer: @unchecked Sendable {
    private let lock = NSLock()
    private var uploads: [String: [UInt8]] = [:]
    private var nextID = 1
    private var appends = 0
    /// Appends (counted from 1) whose connection is cut after half their bytes.
    var cutAppends: Set<Int> = []
    /// Every append fails with a 503.
    var unavailable = false
    /// Appends from this offset on wait until `release`.
    var pauseAt: Int64?
    private let paused = DispatchSemaphore(value: 0)
    private var dropPaused = false
    private var pausedAppends = 0
    /// Appends waiting at the pause.
    var waiting: Int { lock.withLock { pausedAppends } }
    private(set) var bytesReceived = 0

    private static let servers = Mutex<[String: LedgerServer]>([:])

    static func start() -> (name: String, server: LedgerServer) {
        let server = LedgerServer()
        let name = "ledger-\(UUID().uuidString)"
        servers.withLock { $0[name] = server }
        return (name, server)
    }

    static func named(_ name: String) -> LedgerServer? { servers.withLock { $0[name] } }

    func create() -> String {
        lock.withLock {
            defer { nextID += 1 }
            uploads["L\(nextID)"] = []
            return "L\(nextID)"
        }
    }

    func offset(_ id: String) -> Int64? { lock.withLock { uploads[id].map { Int64($0.count) } } }

    func content(_ id: String) -> [UInt8]? { lock.withLock { uploads[id] } }

    var uploadIDs: [String] { lock.withLock { uploads.keys.sorted() } }

    func delete(_ id: String) { lock.withLock { _ = uploads.removeValue(forKey: id) } }

    /// The paused append goes on, or with `dropping` fails as the
    /// connection of a killed process does, none of its bytes kept.
    func release(dropping: Bool = false) {
        let released = lock.withLock {
            pauseAt = nil
            dropPaused = dropping
            defer { pausedAppends = 0 }
            return pausedAppends
        }
        for _ in 0..<released { paused.signal() }
    }

    func append(_ id: String, at offset: Int64, _ bytes: [UInt8]) throws(UploadFailure) -> Int64 {
        let pauses = lock.withLock { () -> Bool in
            guard let pauseAt, offset >= pauseAt else { return false }
            pausedAppends += 1
            return true
        }
        if pauses {
            paused.wait()
            if lock.withLock({ dropPaused }) { throw .connectionLost("the client's process was killed") }
        }
        lock.lock()
        defer { lock.unlock() }
        appends += 1
        guard !unavailable else { throw .httpStatus(503, message: "Service Unavailable") }
        guard var held = uploads[id] else { throw .httpStatus(404, message: "no such upload") }
        guard Int64(held.count) == offset else { throw .httpStatus(409, message: "offset \(held.count)") }
        let kept = cutAppends.contains(appends) ? bytes.prefix(bytes.count / 2) : bytes[...]
        held += kept
        bytesReceived += kept.count
        uploads[id] = held
        if kept.count < bytes.count { throw .connectionLost("reset by the test after \(kept.count) bytes") }
        return Int64(held.count)
    }
}

// MARK: - The kind through the engine, the journal and the UI

@Suite struct FourthKindTests {
    init() {
        TransferKinds.register(LedgerSettings.self)
    }

    static let chunk = 16 << 10

    static func request(_ file: String, server: String, retries: Int = 4) -> UploadRequest {
        UploadRequest(
            url: "http://ledger.invalid/uploads", method: .put, body: .rawFile(path: file, contentType: nil),
            retry: RetryPolicy(maxRetries: retries, baseDelay: .milliseconds(20), maxDelay: .milliseconds(50)),
            label: "ledger 账本.bin", transfer: Transfer(LedgerSettings(server: server, chunkSize: chunk)))
    }

    static func file(in folder: TemporaryDirectory, size: Int, seed: UInt64) throws -> (path: String, bytes: [UInt8]) {
        var generator = SeededGenerator(state: seed)
        let bytes = randomBytes(size, using: &generator)
        let path = folder.path + "/ledger 账本.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    /// A cut connection fails the attempt; the engine retries after a
    /// backoff, and the driver goes on from what the server holds.
    @Test func aCutAppendIsRetriedFromWhatTheServerHolds() async throws {
        let folder = TemporaryDirectory()
        let (path, bytes) = try Self.file(in: folder, size: 10 * Self.chunk, seed: 41)
        let (name, server) = LedgerServer.start()
        server.cutAppends = [3]
        let engine = UploadEngine(configuration: .init(concurrency: 2, environment: [:]))
        let id = try engine.add(Self.request(path, server: name))
        let done = try #require(await engine.result(of: id))
        #expect(done.state == .succeeded, "\(done.state)")
        #expect(done.attempts == 2)
        #expect(done.resumedFrom == Int64(2 * Self.chunk + Self.chunk / 2), "went on from the half-cut third chunk")
        #expect(server.content("L1") == bytes)
        #expect(server.bytesReceived == bytes.count, "no byte was sent twice")
        #expect(done.checkpoint?.summary == "ledger upload L1")
        await engine.shutdown()
    }

    /// A run that dies mid-upload leaves its checkpoint in the journal; a
    /// later run reads it back through the kind's registration and sends
    /// only the rest. The UI shows the task's row and where it lives.
    @Test func aJournalledLedgerUploadGoesOnInAnotherRun() async throws {
        let folder = TemporaryDirectory()
        let (path, bytes) = try Self.file(in: folder, size: 8 * Self.chunk, seed: 42)
        let (name, server) = LedgerServer.start()
        server.pauseAt = Int64(5 * Self.chunk)
        let journal = TemporaryDirectory()
        let store = try JournalStore(directory: journal.path)
        let recorder = JournalRecorder(store: store, command: "test") { Issue.record("journal: \($0)") }
        // Kept when it fails for good, as where a journal records: the "killed" run must not go on.
        let first = UploadEngine(
            configuration: .init(concurrency: 2, environment: [:], keepsUnreachableUploads: true), monitors: [recorder])
        let id = try first.add(Self.request(path, server: name, retries: 0))
        // The sixth append waits at the pause: the run is "killed" there.
        try await JournalTests.waitUntil("5 chunks on the server") {
            first.snapshot(id)?.checkpoint?.offset == Int64(5 * Self.chunk) && server.waiting == 1
        }
        recorder.sync()

        // What a later run reads, as if this one had been killed now.
        let document = try Orphan(directory: journal.path, name: store.name, lock: -1).read()
        let saved = try #require(document.tasks.first?.checkpoint?.state(as: LedgerCheckpoint.self))
        #expect(saved == LedgerCheckpoint(uploadID: "L1", offset: Int64(5 * Self.chunk), length: Int64(bytes.count)))
        #expect(document.tasks.first?.request.transfer == Self.request(path, server: name).transfer)
        server.release(dropping: true)
        let killed = try #require(await first.result(of: id))
        #expect(killed.keptForResume && server.uploadIDs == ["L1"], "\(killed.state)")
        await first.shutdown()

        let collected = EventLog()
        let ui = DispatchQueue(label: "ui")
        let second = UploadEngine(
            configuration: .init(concurrency: 2, environment: [:]),
            monitors: [ClosureEventMonitor(queue: ui) { collected.add($0) }])
        let restored = JournalRecorder(store: try JournalStore(directory: journal.path + "/b"), command: "test") { _ in
        }
        #expect(restored.restore(document.tasks, into: second).restored == 1)
        #expect(second.resumeInterrupted() == 1)
        let again = try #require(second.snapshots().first?.id)
        let done = try #require(await second.result(of: again))
        #expect(done.state == .succeeded, "\(done.state)")
        #expect(done.resumedFrom == Int64(5 * Self.chunk))
        #expect(server.content("L1") == bytes)
        #expect(server.uploadIDs == ["L1"], "the upload went on, no new one was made")
        #expect(server.bytesReceived == bytes.count)

        // The UI, fed the second run's events, lists the task and says where it lives.
        ui.sync {}
        var model = AppModel(
            size: Size(width: 100, height: 30), target: .init(url: "http://ledger.invalid/uploads"), startDirectory: "/"
        )
        for event in collected.events { _ = model.update(.engine(event)) }
        var grid = Grid(size: model.size)
        Screen.render(model, into: &grid)
        let row = try #require(grid.lines().first { $0.contains("ledger 账本.bin") }, "\(grid.lines())")
        #expect(row.contains("✔") && row.contains("100%") && row.contains("201"), "\(row)")
        let lines = ResponseDocument.transferLines(done).map { $0.spans.map(\.text).joined() }
        #expect(lines.contains { $0.contains("ledger upload L1") }, "\(lines)")
        #expect(lines.contains { $0.contains("resumed at 80.0 KiB, not from 0") }, "\(lines)")
        restored.finish()
        recorder.finish()
        await second.shutdown()
    }

    /// Cancelling deletes the upload on the server; failing for good does
    /// too, and the task says so.
    @Test func cancelAndFinalFailureLeaveNothingOnTheServer() async throws {
        let folder = TemporaryDirectory()
        let (path, _) = try Self.file(in: folder, size: 6 * Self.chunk, seed: 43)
        let (name, server) = LedgerServer.start()
        server.pauseAt = Int64(3 * Self.chunk)
        let engine = UploadEngine(configuration: .init(concurrency: 2, environment: [:]))
        let id = try engine.add(Self.request(path, server: name))
        try await JournalTests.waitUntil("3 chunks on the server") {
            engine.snapshot(id)?.checkpoint?.offset == Int64(3 * Self.chunk) && server.waiting == 1
        }
        #expect(server.uploadIDs == ["L1"])
        engine.cancel(id)
        let cancelled = try #require(await engine.result(of: id))
        #expect(cancelled.state == .cancelled(reason: "cancelled by the user"), "\(cancelled.state)")
        #expect(cancelled.checkpoint == nil)
        #expect(server.uploadIDs.isEmpty, "the cancelled upload stayed on the server")
        server.release()

        server.unavailable = true
        let failing = try engine.add(Self.request(path, server: name, retries: 2))
        let failed = try #require(await engine.result(of: failing))
        guard case .failed(let failure) = failed.state else {
            Issue.record("\(failed.state)")
            return
        }
        #expect(failure.description.contains("503"), "\(failure)")
        #expect(failed.attempts == 1 + 2 * RetryPolicy.outageFactor, "a 503 is an outage, waited out longer")
        #expect(failed.note == "the ledger upload was deleted")
        #expect(server.uploadIDs.isEmpty)
        await engine.shutdown()
    }

    /// The journal's form of the kind's settings and checkpoints is the one
    /// earlier versions wrote for tus and S3 (`{"NAME":{"_0":…}}`), and an
    /// unknown kind is an error that names it.
    @Test func settingsAndCheckpointsRoundTripThroughTheRegistry() throws {
        let transfer = Transfer(LedgerSettings(server: "s", chunkSize: 7))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(transfer)
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"ledger":{"_0":{"chunkSize":7,"server":"s"}}}"#)
        #expect(try JSONDecoder().decode(Transfer.self, from: encoded) == transfer)
        let checkpoint = TransferCheckpoint(LedgerCheckpoint(uploadID: "L9", offset: 3, length: 9))
        #expect(try JSONDecoder().decode(TransferCheckpoint.self, from: JSONEncoder().encode(checkpoint)) == checkpoint)
        #expect(try JSONDecoder().decode(Transfer.self, from: Data(#"{"single":{}}"#.utf8)) == .single)
        let old = #"{"tus":{"_0":{"uploadURL":"http://h/files/1","offset":5,"length":10}}}"#
        #expect(try JSONDecoder().decode(TransferCheckpoint.self, from: Data(old.utf8)).tus?.offset == 5)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Transfer.self, from: Data(#"{"gopher":{"_0":{}}}"#.utf8))
        }
    }
}

/// Events in the order a monitor got them.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [UploadEvent] = []

    func add(_ event: UploadEvent) { lock.withLock { stored.append(event) } }
    var events: [UploadEvent] { lock.withLock { stored } }
}
