import Dispatch
import FormData
import Foundation
import TestSupport
import Testing

@testable import UploadEngine

/// The tus client against servers no one here wrote: `resumable-upload`
/// (every extension) and `aiohttp-tus` (core and creation). Each test
/// checks what the server stored, byte for byte.
@Suite(.serialized) struct TusPeerTests {
    let files = TemporaryDirectory()

    func request(_ url: String, path: String, chunk: Int64 = 1 << 20, retry: RetryPolicy = fastRetry) -> UploadRequest {
        UploadRequest(
            url: url, body: .rawFile(path: path), retry: retry, label: baseName(of: path),
            transfer: .tus(
                TusSettings(
                    chunkSize: .fixed(chunk),
                    metadata: [
                        HeaderField("filename", baseName(of: path)),
                        HeaderField("filetype", "application/octet-stream"),
                    ])))
    }

    func engine(_ events: EventLog) -> UploadEngine {
        UploadEngine(configuration: .init(concurrency: 2, environment: [:]), monitors: [events])
    }

    func randomFile(_ name: String, _ size: Int) -> (path: String, sha: String) {
        var generator = SeededGenerator(state: UInt64(size))
        let bytes = randomBytes(size, using: &generator)
        return (files.file(name, bytes), sha256(bytes))
    }

    func checkpoints(_ events: EventLog, _ id: TaskID) -> [TusCheckpoint] {
        events.all().compactMap { event -> TusCheckpoint? in
            guard case .checkpoint(let task) = event, task.id == id, let tus = task.checkpoint?.tus else {
                return nil
            }
            return tus
        }
    }

    /// Waits until the server holds at least `bytes` of the task's upload, by its checkpoints.
    func waitForCheckpoint(_ events: EventLog, _ id: TaskID, atLeast bytes: Int64) async throws -> TusCheckpoint {
        for _ in 0..<600 {
            if let last = checkpoints(events, id).last, last.offset >= bytes { return last }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SubprocessError(message: "no checkpoint at \(bytes) bytes within 12 s")
    }

    func curl(_ arguments: [String]) async throws -> String {
        let result = try await Subprocess.run("/usr/bin/env", ["curl", "-s"] + arguments, timeout: .seconds(30))
        return String(decoding: result.stdout, as: UTF8.self)
    }

    @Test func resumableUploadReceivesEveryByteWithChecksumsAndMetadata() async throws {
        let peer = try await TusPeer.resumableUpload()
        let events = EventLog()
        let engine = engine(events)
        let file = randomFile("身份证 正面.jpg", 3_000_000)
        let id = try engine.add(request(peer.creationURL, path: file.path))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        #expect(done.state == .succeeded, "\(done.state)")
        #expect(done.response?.status == 204)
        #expect(done.progress.bytesSent == 3_000_000)
        #expect(done.resumedFrom == nil)
        let stored = peer.storedFiles().values.map { sha256($0) }
        #expect(stored.contains(file.sha))
        // One checkpoint per chunk, each further than the last.
        let offsets = checkpoints(events, id).map(\.offset)
        #expect(offsets.last == 3_000_000)
        #expect(offsets == offsets.sorted())
        #expect(Set(offsets).isSuperset(of: [1 << 20, 2 << 20]))
        // The upload lives under the server's relative Location, made absolute.
        #expect(done.checkpoint?.uploadURL.hasPrefix(peer.creationURL + "/") == true)
        // The metadata went along: the server reports it on HEAD.
        let head = try await curl(["-I", "-H", "Tus-Resumable: 1.0.0", done.checkpoint!.uploadURL])
        #expect(head.contains("filename 6Lqr5Lu96K+BIOato+mdoi5qcGc="))
    }

    @Test func anotherEngineGoesOnFromTheCheckpointAndSendsOnlyTheRest() async throws {
        let peer = try await TusPeer.resumableUpload()
        let file = randomFile("big.bin", 24 << 20)
        let first = EventLog()
        let engine1 = engine(first)
        let request = request(peer.creationURL, path: file.path, chunk: 512 << 10)
        let id1 = try engine1.add(request)
        let saved = try await waitForCheckpoint(first, id1, atLeast: 4 << 20)
        // Quitting keeps the upload on the server (no DELETE), as a crash would.
        await engine1.shutdown()
        let held = try #require(checkpoints(first, id1).last)
        #expect(held.offset >= saved.offset)

        let second = EventLog()
        let engine2 = engine(second)
        let id2 = try engine2.restore(request, checkpoint: .tus(held))
        #expect(engine2.snapshot(id2)?.progress.bytesSent == held.offset)
        engine2.resumeInterrupted()
        let done = try #require(await engine2.result(of: id2))
        await engine2.shutdown()
        #expect(done.state == .succeeded, "\(done.state)")
        let resumed = try #require(done.resumedFrom)
        #expect(resumed >= held.offset)
        #expect(done.checkpoint?.uploadURL == held.uploadURL)
        // Bytes written by the second engine: from where the server was, never from 0.
        let progress = second.all().compactMap { event -> Int64? in
            switch event {
            case .progress(let task) where task.id == id2, .checkpoint(let task) where task.id == id2:
                return task.progress.bytesSent
            default: return nil
            }
        }
        let written = progress.min() ?? 0
        #expect(written >= resumed)
        #expect(peer.storedFiles().values.map { sha256($0) }.contains(file.sha))
    }

    /// 6 MiB sent in 256 KiB chunks by an engine shut down once the server
    /// holds 1 MiB, as a crash would leave it: the request and its checkpoint.
    func keptUpload(to peer: TusPeer, _ name: String) async throws -> (
        request: UploadRequest, held: TusCheckpoint, sha: String
    ) {
        let file = randomFile(name, 6 << 20)
        let first = EventLog()
        let engine1 = engine(first)
        let request = request(peer.creationURL, path: file.path, chunk: 256 << 10)
        let id1 = try engine1.add(request)
        _ = try await waitForCheckpoint(first, id1, atLeast: 1 << 20)
        await engine1.shutdown()
        return (request, try #require(checkpoints(first, id1).last), file.sha)
    }

    /// `c` on a restored upload (issue 37 #3): the server is asked to free
    /// it first; the task ends only once it answered, and stays while the
    /// server cannot be reached.
    @Test func cancellingARestoredUploadDeletesItOnTheServer() async throws {
        let peer = try await TusPeer.resumableUpload()
        let (request, held, _) = try await keptUpload(to: peer, "kept.bin")

        // The server away: the task stays interrupted, saying why.
        peer.stop()
        let engine2 = engine(EventLog())
        let id2 = try engine2.restore(request, checkpoint: .tus(held))
        engine2.cancel(id2)
        let deadline = ContinuousClock.now + .seconds(30)
        while engine2.snapshot(id2)?.note?.contains("cannot delete") != true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(engine2.snapshot(id2)?.state == .interrupted(problem: nil))
        #expect(engine2.snapshot(id2)?.note?.hasSuffix("it stays, to discard again") == true)
        await engine2.shutdown()

        try await peer.restartResumableUpload()
        #expect(
            try await curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-I", "-H", "Tus-Resumable: 1.0.0", held.uploadURL,
            ]) == "200")
        let engine3 = engine(EventLog())
        let id3 = try engine3.restore(request, checkpoint: .tus(held))
        engine3.cancel(id3)
        let done = try #require(await engine3.result(of: id3))
        await engine3.shutdown()
        #expect(
            done.state == .cancelled(reason: "discarded: the tus upload was deleted on the server"), "\(done.state)")
        #expect(done.checkpoint == nil)
        let status = try await curl([
            "-o", "/dev/null", "-w", "%{http_code}", "-I", "-H", "Tus-Resumable: 1.0.0", held.uploadURL,
        ])
        #expect(["404", "410"].contains(status), "HEAD answered \(status)")
    }

    @Test func anUploadTheServerLostStartsAgainFromZeroAndSaysSo() async throws {
        let peer = try await TusPeer.resumableUpload()
        let (request, held, sha) = try await keptUpload(to: peer, "lost.bin")
        // Gone behind the client's back, as an expired upload is.
        _ = try await curl(["-X", "DELETE", "-H", "Tus-Resumable: 1.0.0", held.uploadURL])

        let second = EventLog()
        let engine2 = engine(second)
        let id2 = try engine2.restore(request, checkpoint: .tus(held))
        engine2.resumeInterrupted()
        let done = try #require(await engine2.result(of: id2))
        await engine2.shutdown()
        #expect(done.state == .succeeded, "\(done.state)")
        #expect(done.resumedFrom == nil)
        #expect(done.checkpoint?.uploadURL != held.uploadURL)
        let notes = second.snapshots(of: id2).compactMap(\.note)
        #expect(
            notes.contains { $0.contains("no longer has the upload (HTTP 404 Not Found); starting again from byte 0") })
        #expect(peer.storedFiles().values.map { sha256($0) }.contains(sha))
    }

    @Test func cancellingAnUploadDeletesItOnTheServer() async throws {
        let peer = try await TusPeer.resumableUpload()
        let file = randomFile("cancel.bin", 16 << 20)
        let events = EventLog()
        let engine = engine(events)
        // 16 s at this rate: the cancel below comes long before the end. Unlimited,
        // a loaded machine (CI) once finished the upload while curl checked it.
        engine.limitRate = 1 << 20
        let id = try engine.add(request(peer.creationURL, path: file.path, chunk: 128 << 10))
        let checkpoint = try await waitForCheckpoint(events, id, atLeast: 256 << 10)
        #expect(
            try await curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-I", "-H", "Tus-Resumable: 1.0.0", checkpoint.uploadURL,
            ]) == "200")
        engine.cancel(id)
        var status = ""
        for _ in 0..<100 {
            status = try await curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-I", "-H", "Tus-Resumable: 1.0.0", checkpoint.uploadURL,
            ])
            if status == "404" { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await engine.shutdown()
        #expect(status == "404")
        #expect(engine.snapshot(id)?.checkpoint == nil)
    }

    @Test func aiohttpTusTakesTheBasicPathAndItsLimitShrinksTheChunks() async throws {
        let peer = try await TusPeer.aiohttpTus(maxBody: 1 << 20)
        let events = EventLog()
        let engine = engine(events)
        let file = randomFile("photo.jpg", 3_000_000)
        let id = try engine.add(request(peer.creationURL, path: file.path, chunk: 4 << 20))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        #expect(done.state == .succeeded, "\(done.state)")
        let notes = events.snapshots(of: id).compactMap(\.note)
        #expect(notes.contains { $0.contains("refused a 3000000-byte chunk as too large (HTTP 413)") })
        #expect(peer.storedFiles().values.map { sha256($0) }.contains(file.sha))
    }
}

/// One file as partial uploads joined by the server (concatenation).
@Suite(.serialized) struct TusParallelPartsTests {
    let files = TemporaryDirectory()

    func request(_ url: String, path: String, parts: Int, chunk: Int64 = 256 << 10) -> UploadRequest {
        UploadRequest(
            url: url, body: .rawFile(path: path), retry: fastRetry, label: baseName(of: path),
            transfer: .tus(
                TusSettings(
                    chunkSize: .fixed(chunk), parallelParts: parts,
                    metadata: [HeaderField("filename", baseName(of: path))])))
    }

    @Test func partsGoAtOnceAndTheServerJoinsThemInOrder() async throws {
        let peer = try await TusPeer.resumableUpload()
        var generator = SeededGenerator(state: 77)
        let bytes = randomBytes(5_000_001, using: &generator)
        let path = files.file("parts.bin", bytes)
        let events = EventLog()
        let engine = UploadEngine(configuration: .init(concurrency: 1, environment: [:]), monitors: [events])
        let id = try engine.add(request(peer.creationURL, path: path, parts: 3))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        #expect(done.state == .succeeded, "\(done.state)")
        #expect(done.response?.status == 201)
        #expect(done.progress.bytesSent == 5_000_001)
        guard let saved = done.checkpoint?.tusParts else {
            Issue.record("expected a parts checkpoint, got \(String(describing: done.checkpoint))")
            return
        }
        #expect(saved.ranges.count == 3)
        #expect(saved.ranges.first?.lowerBound == 0 && saved.ranges.last?.upperBound == 5_000_001)
        #expect(saved.parts.allSatisfy { $0?.offset == $0?.length })
        let final = try #require(saved.finalURL)
        #expect(done.checkpoint?.uploadURL == final)
        // The joined upload is the file, byte for byte.
        let head = try await Subprocess.run(
            "/usr/bin/env", ["curl", "-sI", "-H", "Tus-Resumable: 1.0.0", final], timeout: .seconds(30))
        #expect(String(decoding: head.stdout, as: UTF8.self).contains("Upload-Length: 5000001"))
        #expect(peer.storedFiles().values.map { sha256($0) }.contains(sha256(bytes)))
    }

    @Test func withoutConcatenationItSaysSoAndSendsOneUpload() async throws {
        let peer = try await TusPeer.aiohttpTus(maxBody: 1 << 20)
        var generator = SeededGenerator(state: 78)
        let bytes = randomBytes(900_000, using: &generator)
        let path = files.file("one.bin", bytes)
        let events = EventLog()
        let engine = UploadEngine(configuration: .init(concurrency: 1, environment: [:]), monitors: [events])
        let id = try engine.add(request(peer.creationURL, path: path, parts: 4))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        #expect(done.state == .succeeded, "\(done.state)")
        #expect(events.snapshots(of: id).contains { $0.note?.contains("does not offer tus concatenation") == true })
        #expect(peer.storedFiles().values.map { sha256($0) }.contains(sha256(bytes)))
    }
}
