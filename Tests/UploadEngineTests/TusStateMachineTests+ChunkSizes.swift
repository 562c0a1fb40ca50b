import FormData
import Glibc
import TestSupport
import Testing

@testable import UploadEngine

/// Chunk sizes: automatic ones follow the link's speed within their bounds, a fixed one stays.
extension TusStateMachineTests {
    @Test func anAutomaticChunkIsAboutASecondOfTransferWithinItsBounds() {
        let first = TusChunkSize.first
        #expect(TusChunkSize.automatic(afterSending: first, in: 0.5) == 2 * first)  // 16 MiB/s
        #expect(TusChunkSize.automatic(afterSending: first, in: 0.3) == 2 * first)  // 26 MiB/s: not 32 MiB yet
        #expect(TusChunkSize.automatic(afterSending: first, in: 8) == first)  // 1 MiB/s: never below the first
        #expect(TusChunkSize.automatic(afterSending: first, in: 0.001) == TusChunkSize.largest)
        #expect(TusChunkSize.automatic(afterSending: first, in: 0.001, ceiling: 12 << 20) == 12 << 20)
        #expect(TusChunkSize.automatic(afterSending: first, in: 0) == TusChunkSize.largest)
    }

    @Test func automaticChunksGrowOnAFastLinkShrinkOnASlowOneAndWhatWasHashedIsSent() throws {
        let mib: Int64 = 1 << 20
        let path = directory.path + "/big.bin"
        let fd = open(path, O_CREAT | O_WRONLY, 0o644)
        ftruncate(fd, off_t(1 << 30))  // sparse: only its size matters here
        close(fd)
        let file = try #require(FileSnapshot(path: path))
        var m = TusUploadStateMachine(
            endpoint: endpoint, path: path, metadata: [], settings: TusSettings(), checkpoint: nil)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        func answer(at offset: Int64, seconds: Double) -> Range<Int64>? {
            exchange(
                m.handle(
                    .answered(status: 204, headers: [HeaderField("Upload-Offset", String(offset))], seconds: seconds)))?
                .chunk
        }
        var chunk = try #require(
            exchange(m.handle(.answered(status: 201, headers: [HeaderField("Location", "/f/1")])))?.chunk)
        #expect(chunk == 0..<8 * mib)
        // The engine hashes the chunk after the one on the wire; it must be the one sent next.
        var hashed = m.chunk(following: chunk)
        #expect(hashed == 8 * mib..<16 * mib)
        // Loopback speed: 8 MiB in 10 ms affords the largest chunk, but a
        // chunk at most doubles, so each is hashed in its forerunner's transfer.
        // While the size grows the one after the next is unknown; once it
        // settles, that one is hashed too.
        for (offset, size, ahead) in [(8, 8, 1), (16, 16, 1), (32, 32, 1), (64, 64, 2), (128, 64, 2)]
            as [(Int64, Int64, Int)]
        {
            chunk = try #require(answer(at: offset * mib, seconds: 0.01))
            #expect(chunk == hashed)
            #expect(chunk == offset * mib..<(offset + size) * mib)
            hashed = m.chunk(following: chunk)
            #expect(m.chunks(following: chunk).first == hashed)
            #expect(m.chunks(following: chunk).count == ahead)
        }
        #expect(hashed == 192 * mib..<256 * mib)
        #expect(m.chunks(following: chunk).last == 256 * mib..<320 * mib)
        // The link slows to 2 MiB/s: back to 8 MiB, one chunk later.
        chunk = try #require(answer(at: 192 * mib, seconds: 32))
        #expect(chunk == hashed)
        hashed = m.chunk(following: chunk)
        #expect(hashed == 256 * mib..<264 * mib)
        chunk = try #require(answer(at: 256 * mib, seconds: 32))
        #expect(chunk == hashed)
        // A 413 caps every later chunk at half the refused one, however fast the link.
        let refused = m.handle(.answered(status: 413, headers: []))
        #expect(refused.note?.contains("refused a 8388608-byte chunk") == true)
        chunk = try #require(
            exchange(m.handle(.answered(status: 200, headers: [HeaderField("Upload-Offset", "\(256 * mib)")])))?.chunk)
        #expect(chunk == 256 * mib..<260 * mib)
        chunk = try #require(answer(at: 260 * mib, seconds: 0.001))
        #expect(chunk.count == 4 * mib)
        #expect(m.chunk(following: chunk)?.count == Int(4 * mib))
        // The last chunk ends at the file's end.
        _ = m.handle(.failed(.connectionLost("reset")))
        _ = m.handle(.start(file: file))
        let end = m.chunk(following: (1 << 30) - 6 * mib..<(1 << 30) - 2 * mib)
        #expect(end == (1 << 30) - 2 * mib..<(1 << 30))
    }

    @Test func aFixedChunkStaysWhateverTheSpeed() {
        var (m, file) = machine(size: 100_000, chunk: 16 << 10)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        _ = m.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/z")]))
        let next = exchange(
            m.handle(.answered(status: 204, headers: [HeaderField("Upload-Offset", "16384")], seconds: 0.0001)))
        #expect(next?.chunk == 16384..<32768)
        #expect(m.chunk(following: 16384..<32768) == 32768..<49152)
    }
}
