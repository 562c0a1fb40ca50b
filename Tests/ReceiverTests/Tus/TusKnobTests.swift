import Foundation
import Receiver
import TestSupport
import Testing

/// TusKnobs, and the server-wide knobs where they meet the tus endpoint.
@Suite struct TusKnobTests {
    @Test func aResetMidPatchKeepsTheBytesThatArrived() async throws {
        let bytes = pseudoRandomBytes(300_000, seed: 31)
        try await withReceiver({
            $0.tusKnobs.resetPatchFirst = 1
            $0.tusKnobs.resetPatchAfterBytes = 100_000
        }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count, filename: "resumed.bin")
            let reset = try await tus.patch(location, offset: 0, bytes)
            #expect(reset.status == 0)
            #expect([52, 55, 56].contains(reset.exitCode), "\(reset.exitCode) \(reset.stderr)")

            let head = try await tus.head(location)
            #expect(head.offset == 100_000)
            let resumed = try await tus.patch(location, offset: 100_000, Array(bytes[100_000...]))
            #expect(resumed.status == 204 && resumed.offset == 300_000)
            #expect(fileBytes(server.saved("resumed.bin")) == bytes)

            let patches = server.receiver.tusRequests().filter { $0.method == "PATCH" }
            #expect(patches.map(\.status) == [0, 204])
            #expect(patches.map(\.keptRange) == [0..<100_000, 100_000..<300_000])
            #expect(patches[0].bodyBytes >= 100_000)
        }
    }

    @Test func aClientThatDropsMidPatchKeepsTheBytesThatArrived() async throws {
        // Larger than what the socket buffers hold, so part of it never leaves curl.
        let bytes = pseudoRandomBytes(32 << 20, seed: 36)
        try await withReceiver({ $0.readBytesPerSecond = 8 << 20 }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count, filename: "dropped.bin")
            let dropped = try await tus.patch(
                location, offset: 0, bytes, headers: TusCurl.version + TusCurl.chunkType + ["--max-time", "2"])
            #expect(dropped.status == 0 && dropped.exitCode == 28)
            try await eventually { server.receiver.tusRequests().contains { $0.method == "PATCH" } }
            let record = try #require(server.receiver.tusRequests().last)
            #expect(record.status == 0)
            let kept = try #require(record.offsetAfter)
            #expect(kept > 0 && kept < bytes.count)
            #expect(record.keptBytes == kept)

            #expect(try await tus.head(location).offset == Int(kept))
            let resumed = try await tus.patch(location, offset: Int(kept), Array(bytes[Int(kept)...]))
            #expect(resumed.offset == bytes.count)
            #expect(fileBytes(server.saved("dropped.bin")) == bytes)
        }
    }

    @Test func aResetAfterASmallerBodyKeepsAllOfItButAnswersNothing() async throws {
        try await withReceiver({
            $0.tusKnobs.resetPatchFirst = 1
            $0.tusKnobs.resetPatchAfterBytes = 1 << 20
        }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 2_000)
            let lost = try await tus.patch(location, offset: 0, Array(repeating: 9, count: 1_000))
            #expect(lost.status == 0 && lost.exitCode != 0)
            #expect(try await tus.head(location).offset == 1_000)
        }
    }

    @Test func aResetRightAfterTheHeadersAndOneWithAChecksumKeepNothing() async throws {
        let bytes = pseudoRandomBytes(50_000, seed: 32)
        try await withReceiver({
            $0.tusKnobs.resetPatchFirst = 2
            $0.tusKnobs.resetPatchAfterBytes = 0
        }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count)
            #expect(try await tus.patch(location, offset: 0, bytes).status == 0)
            #expect(try await tus.head(location).offset == 0)
        }
        try await withReceiver({
            $0.tusKnobs.resetPatchFirst = 1
            $0.tusKnobs.resetPatchAfterBytes = 20_000
        }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count)
            let headers = TusChecksumAndConcatenationTests.withChecksum(
                TusChecksumAndConcatenationTests.checksum("sha256", bytes))
            #expect(try await tus.patch(location, offset: 0, bytes, headers: headers).status == 0)
            #expect(try await tus.head(location).offset == 0)
            #expect(try await tus.patch(location, offset: 0, bytes, headers: headers).status == 204)
        }
    }

    @Test func conflictFirstRefusesRightOffsetsThenAccepts() async throws {
        try await withReceiver({ $0.tusKnobs.conflictFirst = 2 }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 10)
            for _ in 0..<2 {
                let conflict = try await tus.patch(location, offset: 0, Array(repeating: 1, count: 10))
                #expect(conflict.status == 409 && conflict.offset == 0)
                #expect((try conflict.json()["error"] as? String)?.contains("conflictFirst") == true)
            }
            #expect(try await tus.patch(location, offset: 0, Array(repeating: 1, count: 10)).status == 204)
            #expect(server.receiver.tusRequests().filter { $0.method == "PATCH" }.map(\.bodyBytes).last == 10)
        }
    }

    @Test func checksumFailFirstFailsGoodChecksumsThenAccepts() async throws {
        let bytes = pseudoRandomBytes(8_000, seed: 33)
        try await withReceiver({ $0.tusKnobs.checksumFailFirst = 1 }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count, filename: "c.bin")
            // A PATCH without a checksum is not counted.
            #expect(try await tus.patch(location, offset: 0, Array(bytes[..<1_000])).status == 204)
            let chunk = Array(bytes[1_000...])
            let headers = TusChecksumAndConcatenationTests.withChecksum(
                TusChecksumAndConcatenationTests.checksum("sha1", chunk))
            let failed = try await tus.patch(location, offset: 1_000, chunk, headers: headers)
            #expect(failed.status == 460 && failed.offset == 1_000)
            #expect(try await tus.head(location).offset == 1_000)
            #expect(try await tus.patch(location, offset: 1_000, chunk, headers: headers).status == 204)
            #expect(fileBytes(server.saved("c.bin")) == bytes)
        }
    }

    @Test func maxChunkRefusesLargerBodiesBeforeReadingThem() async throws {
        let bytes = pseudoRandomBytes(3_000, seed: 34)
        try await withReceiver({ $0.tusKnobs.maxChunk = 1_000 }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count, filename: "m.bin")
            let tooBig = try await tus.patch(location, offset: 0, Array(bytes[..<1_001]))
            #expect(tooBig.status == 413)
            #expect(tooBig.header("Connection") == "close")
            #expect(try await tus.create(length: 3_000, body: bytes).status == 413)

            // A chunked body is refused once it passes the size, and nothing of it is kept.
            let chunked = try await tus.patch(
                location, offset: 0, bytes,
                headers: TusCurl.version + TusCurl.chunkType + ["-H", "Transfer-Encoding: chunked"])
            #expect(chunked.status == 413)
            #expect(try await tus.head(location).offset == 0)

            for start in stride(from: 0, to: 3_000, by: 1_000) {
                #expect(try await tus.patch(location, offset: start, Array(bytes[start..<start + 1_000])).status == 204)
            }
            #expect(fileBytes(server.saved("m.bin")) == bytes)
        }
    }

    @Test func expireFirstForgetsTheUploadAfterItsPatch() async throws {
        try await withReceiver({ $0.tusKnobs.expireFirst = 1 }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 20)
            let patched = try await tus.patch(location, offset: 0, Array(repeating: 1, count: 10))
            #expect(patched.status == 204 && patched.offset == 10)
            #expect(try await tus.head(location).status == 404)
            #expect(try await tus.patch(location, offset: 10, Array(repeating: 1, count: 10)).status == 404)

            // Only the first: a new upload is kept.
            let again = try await tus.created(length: 20, filename: "kept.bin")
            #expect(try await tus.patch(again, offset: 0, Array(repeating: 2, count: 10)).status == 204)
            #expect(try await tus.head(again).offset == 10)
        }
    }

    @Test func serverWideKnobsApplyToTusRequestsToo() async throws {
        try await withReceiver({
            $0.failFirst = 1
            $0.retryAfterSeconds = 3
        }) { server in
            let tus = TusCurl(server)
            let refused = try await tus.create(length: 10)
            #expect(refused.status == 503 && refused.header("Retry-After") == "3")
            #expect(refused.header("Tus-Resumable") == "1.0.0")
            #expect(try await tus.create(length: 10).status == 201)
            #expect(server.receiver.tusRequests().map(\.status) == [503, 201])
        }
    }

    @Test func aPatchWaitsForTheOneBeforeIt() async throws {
        // A slow PATCH holds the upload; a second PATCH at the same offset waits for it, then gets 409.
        let bytes = pseudoRandomBytes(200_000, seed: 35)
        // 8 s for the slow PATCH: time for HEADs through curl on a busy machine (at 2 s, two full
        // suite runs saw it end before the first HEAD answered).
        try await withReceiver({ $0.readBytesPerSecond = 25_000 }) { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count)
            async let slow = tus.patch(location, offset: 0, bytes)
            // HEAD shows the bytes of a PATCH still in progress.
            var progress = 0
            for _ in 0..<500 where progress == 0 {
                progress = try await tus.head(location).offset ?? 0
            }
            #expect(progress > 0 && progress < 200_000)
            // The second PATCH goes once under the receiver's 3 s lock wait is left of the first.
            var offset = progress
            for _ in 0..<500 where offset < 150_000 {
                offset = try await tus.head(location).offset ?? 0
            }
            let second = try await tus.patch(location, offset: 0, Array(bytes[..<10]))
            #expect(second.status == 409 && second.offset == 200_000)
            #expect(try await slow.status == 204)
        }
    }
}
