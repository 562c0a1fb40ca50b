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
    func request(_ harness: Harness, _ path: String, chunk: Int64 = 256 << 10, checksum: Bool = true) -> UploadRequest
    {
        UploadRequest(
            url: harness.receiver.baseURL + "/files", body: .rawFile(path: path), retry: fastRetry,
            label: baseName(of: path),
            transfer: .tus(
                TusSettings(
                    chunkSize: chunk, metadata: [HeaderField("filename", baseName(of: path))], checksum: checksum)))
    }

    func randomFile(_ harness: Harness, _ size: Int) -> (path: String, bytes: [UInt8]) {
        var generator = SeededGenerator(state: UInt64(size))
        let bytes = randomBytes(size, using: &generator)
        return (harness.files.file("身份证 正面.jpg", bytes), bytes)
    }

    /// The upload's bytes as the server kept them: adjacent, from 0 to the end, none twice.
    func expectEachByteKeptOnce(_ records: [TusRequestRecord], size: Int, sourceLocation: SourceLocation = #_sourceLocation)
    {
        let uploads = Set(records.compactMap(\.uploadID))
        let last = records.last { $0.savedAs != nil }?.uploadID
        let ranges = records.filter { $0.uploadID == last }.compactMap(\.keptRange).sorted { $0.lowerBound < $1.lowerBound }
        #expect(!uploads.isEmpty, sourceLocation: sourceLocation)
        #expect(
            zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(ranges)",
            sourceLocation: sourceLocation)
        #expect(ranges.first?.lowerBound == 0, sourceLocation: sourceLocation)
        #expect(ranges.last?.upperBound == Int64(size), sourceLocation: sourceLocation)
    }

    func savedFile(_ harness: Harness) throws -> [UInt8] {
        let name = try #require(harness.receiver.tusRequests().compactMap(\.savedAs).last)
        return Array(try #require(FileManager.default.contents(atPath: harness.saved.path + "/" + name)))
    }

    @Test func aResetMidPatchGoesOnFromTheBytesTheServerKept() async throws {
        try await Harness.run(configure: {
            $0.tusKnobs.resetPatchFirst = 1
            $0.tusKnobs.resetPatchAfterBytes = 100_000
        }) { harness in
            let file = randomFile(harness, 1_000_000)
            // Without checksums the server keeps what arrived before the reset.
            let id = try harness.engine.add(request(harness, file.path, checksum: false))
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            let reset = try #require(records.firstIndex { $0.method == "PATCH" && $0.status == 0 })
            #expect(records[reset].keptBytes > 0)
            // The next request asks where the server is, and the PATCH after it starts there.
            #expect(records[reset + 1].method == "HEAD")
            let next = try #require(records[(reset + 1)...].first { $0.method == "PATCH" })
            #expect(next.uploadOffset == records[reset].offsetAfter)
            expectEachByteKeptOnce(records, size: 1_000_000)
            #expect(try savedFile(harness) == file.bytes)
        }
    }

    @Test func a409AsksTheServerAgainAndGoesOn() async throws {
        try await Harness.run(configure: { $0.tusKnobs.conflictFirst = 1 }) { harness in
            let file = randomFile(harness, 700_000)
            let id = try harness.engine.add(request(harness, file.path))
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            let conflict = try #require(records.firstIndex { $0.status == 409 })
            #expect(records[conflict + 1].method == "HEAD")
            expectEachByteKeptOnce(records, size: 700_000)
            #expect(try savedFile(harness) == file.bytes)
        }
    }

    @Test func a460SendsThatChunkAgain() async throws {
        try await Harness.run(configure: { $0.tusKnobs.checksumFailFirst = 1 }) { harness in
            let file = randomFile(harness, 700_000)
            let id = try harness.engine.add(request(harness, file.path))
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            let refused = try #require(records.first { $0.status == 460 })
            #expect(refused.keptBytes == 0)
            let again = records.filter { $0.method == "PATCH" && $0.uploadOffset == refused.uploadOffset }
            #expect(again.count == 2 && again.last?.status == 204)
            expectEachByteKeptOnce(records, size: 700_000)
            #expect(try savedFile(harness) == file.bytes)
        }
    }

    @Test func anExpiredUploadStartsAgainFromZeroAndSaysSo() async throws {
        try await Harness.run(configure: { $0.tusKnobs.expireFirst = 1 }) { harness in
            let file = randomFile(harness, 900_000)
            let id = try harness.engine.add(request(harness, file.path))
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let notes = harness.events.snapshots(of: id).compactMap(\.note)
            #expect(notes.contains { $0.contains("no longer has the upload (HTTP 404") && $0.contains("from byte 0") })
            #expect(Set(harness.receiver.tusRequests().filter { $0.method == "POST" }.compactMap(\.uploadID)).count == 2)
            expectEachByteKeptOnce(harness.receiver.tusRequests(), size: 900_000)
            #expect(try savedFile(harness) == file.bytes)
        }
    }

    @Test func a413MakesTheChunksSmaller() async throws {
        try await Harness.run(configure: { $0.tusKnobs.maxChunk = 300_000 }) { harness in
            let file = randomFile(harness, 1_000_000)
            let id = try harness.engine.add(request(harness, file.path, chunk: 1 << 20))
            let done = try await harness.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let records = harness.receiver.tusRequests()
            #expect(records.contains { $0.status == 413 })
            #expect(records.filter { $0.status == 204 }.allSatisfy { $0.bodyBytes <= 300_000 })
            expectEachByteKeptOnce(records, size: 1_000_000)
            #expect(try savedFile(harness) == file.bytes)
        }
    }

    @Test func cancellingSendsDeleteAndTheServerForgetsTheUpload() async throws {
        try await Harness.run(configure: { $0.readBytesPerSecond = 1 << 20 }) { harness in
            let file = randomFile(harness, 4_000_000)
            let id = try harness.engine.add(request(harness, file.path, chunk: 128 << 10))
            try await Poll.until { harness.receiver.tusRequests().contains { $0.method == "PATCH" && $0.status == 204 } }
            harness.engine.cancel(id)
            try await Poll.until { harness.receiver.tusRequests().contains { $0.method == "DELETE" } }
            let delete = try #require(harness.receiver.tusRequests().first { $0.method == "DELETE" })
            #expect(delete.status == 204)
            #expect(harness.engine.snapshot(id)?.state == .cancelled(reason: "cancelled by the user"))
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
