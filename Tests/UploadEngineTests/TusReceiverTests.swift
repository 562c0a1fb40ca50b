import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// The tus client's failure paths against the embedded receiver's tus
/// endpoint and its knobs (see `TusKnobs`), checked by what the server
/// recorded: which bytes each request added, and that none came twice.
@Suite(.serialized) struct TusReceiverTests {
    func request(_ harness: Harness, _ path: String, chunk: Int64 = 256 << 10, checksum: Bool = true) -> UploadRequest {
        UploadRequest(
            url: harness.receiver.baseURL + "/files", body: .rawFile(path: path), retry: fastRetry,
            label: baseName(of: path),
            transfer: .tus(
                TusSettings(
                    chunkSize: .fixed(chunk), metadata: [HeaderField("filename", baseName(of: path))],
                    checksum: checksum)))
    }

    func randomFile(_ harness: Harness, _ size: Int) -> (path: String, bytes: [UInt8]) {
        var generator = SeededGenerator(state: UInt64(size))
        let bytes = randomBytes(size, using: &generator)
        return (harness.files.file("身份证 正面.jpg", bytes), bytes)
    }

    /// The upload's bytes as the server kept them: adjacent, from 0 to the end, none twice.
    func expectEachByteKeptOnce(
        _ records: [TusRequestRecord], size: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let uploads = Set(records.compactMap(\.uploadID))
        let last = records.last { $0.savedAs != nil }?.uploadID
        let ranges = records.filter { $0.uploadID == last }.compactMap(\.keptRange).sorted {
            $0.lowerBound < $1.lowerBound
        }
        #expect(!uploads.isEmpty, sourceLocation: sourceLocation)
        #expect(
            zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(ranges)",
            sourceLocation: sourceLocation)
        #expect(ranges.first?.lowerBound == 0, sourceLocation: sourceLocation)
        #expect(ranges.last?.upperBound == Int64(size), sourceLocation: sourceLocation)
    }

    /// Sends `size` random bytes through the receiver set up by `configure`,
    /// and checks what every test of a failure path checks: the task
    /// succeeded, the server kept each byte once, and saved the file whole.
    /// Returns what the server recorded and the task's snapshots.
    func upload(
        _ size: Int, chunk: Int64 = 256 << 10, checksum: Bool = true,
        configure: (inout ReceiverConfiguration) -> Void
    ) async throws -> (records: [TusRequestRecord], snapshots: [TaskSnapshot]) {
        try await Harness.run(configure: configure) { harness in
            let file = randomFile(harness, size)
            let id = try harness.engine.add(request(harness, file.path, chunk: chunk, checksum: checksum))
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            expectEachByteKeptOnce(records, size: size)
            let name = try #require(records.compactMap(\.savedAs).last)
            #expect(FileManager.default.contents(atPath: harness.saved.path + "/" + name) == Data(file.bytes))
            return (records, harness.events.snapshots(of: id))
        }
    }

    @Test func aResetMidPatchGoesOnFromTheBytesTheServerKept() async throws {
        // Without checksums the server keeps what arrived before the reset.
        let (records, _) = try await upload(1_000_000, checksum: false) {
            $0.tusKnobs.resetPatchFirst = 1
            $0.tusKnobs.resetPatchAfterBytes = 100_000
        }
        let reset = try #require(records.firstIndex { $0.method == "PATCH" && $0.status == 0 })
        #expect(records[reset].keptBytes > 0)
        // The next request asks where the server is, and the PATCH after it starts there.
        #expect(records[reset + 1].method == "HEAD")
        let next = try #require(records[(reset + 1)...].first { $0.method == "PATCH" })
        #expect(next.uploadOffset == records[reset].offsetAfter)
    }

    @Test func a409AsksTheServerAgainAndGoesOn() async throws {
        let (records, _) = try await upload(700_000) { $0.tusKnobs.conflictFirst = 1 }
        let conflict = try #require(records.firstIndex { $0.status == 409 })
        #expect(records[conflict + 1].method == "HEAD")
    }

    @Test func a460SendsThatChunkAgain() async throws {
        let (records, _) = try await upload(700_000) { $0.tusKnobs.checksumFailFirst = 1 }
        let refused = try #require(records.first { $0.status == 460 })
        #expect(refused.keptBytes == 0)
        let again = records.filter { $0.method == "PATCH" && $0.uploadOffset == refused.uploadOffset }
        #expect(again.count == 2 && again.last?.status == 204)
    }

    @Test func anExpiredUploadStartsAgainFromZeroAndSaysSo() async throws {
        let (records, snapshots) = try await upload(900_000) { $0.tusKnobs.expireFirst = 1 }
        let notes = snapshots.compactMap(\.note)
        #expect(notes.contains { $0.contains("no longer has the upload (HTTP 404") && $0.contains("from byte 0") })
        #expect(Set(records.filter { $0.method == "POST" }.compactMap(\.uploadID)).count == 2)
    }

    @Test func a413MakesTheChunksSmaller() async throws {
        let (records, _) = try await upload(1_000_000, chunk: 1 << 20) { $0.tusKnobs.maxChunk = 300_000 }
        #expect(records.contains { $0.status == 413 })
        #expect(records.filter { $0.status == 204 }.allSatisfy { $0.bodyBytes <= 300_000 })
    }

    @Test func automaticChunksTakeTheirStepsAndEachIsVerified() async throws {
        try await Harness.run { harness in
            let size = 40 << 20
            let file = randomFile(harness, size)
            var request = request(harness, file.path)
            request.transfer = .tus(TusSettings(metadata: [HeaderField("filename", "auto.bin")]))
            let id = try harness.engine.add(request)
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            expectEachByteKeptOnce(records, size: size)
            // 8 MiB with the creation, 8 MiB already hashed meanwhile, then
            // what each answer's rate planned: 8, 16, 32 or 64 MiB (how far
            // it grows depends on the machine's load; the state machine's
            // tests pin the sizes), the last chunk cut at the end. No 460:
            // each chunk hashed ahead was the one sent.
            let bodies = records.filter { $0.bodyBytes > 0 }.map(\.bodyBytes)
            let mib: Int64 = 1 << 20
            #expect(bodies.prefix(2) == [8 * mib, 8 * mib])
            #expect(bodies.dropLast().allSatisfy { [8 * mib, 16 * mib, 32 * mib, 64 * mib].contains($0) }, "\(bodies)")
            #expect(bodies.reduce(0, +) == Int64(size))
            #expect(records.allSatisfy { (200..<300).contains($0.status) })
        }
    }

    @Test func partsGoAtOnceAndTheReceiverJoinsThemWhole() async throws {
        try await Harness.run { harness in
            let file = randomFile(harness, 3_000_001)
            var request = request(harness, file.path, chunk: 128 << 10)
            if var settings = request.transfer.tus {
                settings.parallelParts = 3
                request.transfer = .tus(settings)
            }
            let id = try harness.engine.add(request)
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            // Three partial uploads, then one final upload that names them.
            #expect(records.filter { $0.method == "POST" }.count == 4)
            let name = try #require(records.compactMap(\.savedAs).last)
            #expect(FileManager.default.contents(atPath: harness.saved.path + "/" + name) == Data(file.bytes))
            guard let saved = done.checkpoint?.tusParts else {
                Issue.record("expected a parts checkpoint, got \(String(describing: done.checkpoint))")
                return
            }
            #expect(saved.ranges.count == 3 && saved.finalURL != nil)
        }
    }

    @Test func cancellingSendsDeleteAndTheServerForgetsTheUpload() async throws {
        try await Harness.run(configure: { $0.readBytesPerSecond = 1 << 20 }) { harness in
            let file = randomFile(harness, 4_000_000)
            let id = try harness.engine.add(request(harness, file.path, chunk: 128 << 10))
            try await Poll.until {
                harness.receiver.tusRequests().contains { $0.method == "PATCH" && $0.status == 204 }
            }
            harness.engine.cancel(id)
            try await Poll.until { harness.receiver.tusRequests().contains { $0.method == "DELETE" } }
            let delete = try #require(harness.receiver.tusRequests().first { $0.method == "DELETE" })
            #expect(delete.status == 204)
            #expect(harness.engine.snapshot(id)?.state == .cancelled(reason: "cancelled by the user"))
        }
    }

    /// P in the Tasks pane: a paused upload keeps what the server has (no
    /// DELETE), and going on (`retry`) starts at the server's offset.
    @Test func aPausedUploadGoesOnFromTheServersOffset() async throws {
        try await Harness.run(configure: { $0.readBytesPerSecond = 1 << 20 }) { harness in
            let file = randomFile(harness, 4_000_000)
            let id = try harness.engine.add(request(harness, file.path, chunk: 128 << 10))
            try await Poll.until {
                harness.receiver.tusRequests().filter { $0.method == "PATCH" && $0.status == 204 }.count >= 3
            }
            harness.engine.pause(id)
            let paused = try await harness.finish(id)
            #expect(paused.isPaused && paused.state == .cancelled(reason: UploadEngine.pausedReason))
            try await Task.sleep(for: .milliseconds(300))
            #expect(!harness.receiver.tusRequests().contains { $0.method == "DELETE" }, "the server keeps it")
            harness.engine.retry(id)
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            #expect((done.resumedFrom ?? 0) >= 3 * (128 << 10), "went on from the server's offset: \(done)")
            let records = harness.receiver.tusRequests()
            expectEachByteKeptOnce(records, size: 4_000_000)
            #expect(Set(records.compactMap(\.uploadID)).count == 1, "one upload on the server")
        }
    }
}

/// Polls `condition` every 20 ms for up to 20 s.
enum Poll {
    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SubprocessError(message: "timed out")
    }
}
