import FormData
import Glibc
import TestSupport
import Testing

@testable import UploadEngine

/// The tus driver fed answers, with no socket: each test asserts the next
/// request it asks for.
@Suite struct TusStateMachineTests {
    let directory = TemporaryDirectory()
    let endpoint = "https://tus.example/files/"

    func machine(size: Int = 100, chunk: Int64 = 16 << 10, checkpoint: TusCheckpoint? = nil)
        -> (TusUploadStateMachine, FileSnapshot)
    {
        let path = directory.file("a.bin", Array(repeating: 7, count: size))
        let machine = TusUploadStateMachine(
            endpoint: endpoint, path: path, metadata: [HeaderField("filename", "a.bin")],
            settings: TusSettings(chunkSize: .fixed(chunk)), checkpoint: checkpoint)
        return (machine, FileSnapshot(path: path)!)
    }

    static let options: [HeaderField] = [
        HeaderField("Tus-Resumable", "1.0.0"), HeaderField("Tus-Version", "1.0.0"),
        HeaderField("Tus-Extension", "creation,termination,checksum"),
        HeaderField("Tus-Checksum-Algorithm", "md5,sha1,sha256"),
    ]

    @Test func theChecksumIsSha1WhenOfferedElseTheStrongest() {
        #expect(TusChecksumAlgorithm.choose(offered: ["md5", "SHA1", "sha512"]) == .sha1)
        #expect(TusChecksumAlgorithm.choose(offered: ["md5", "sha256", "crc32"]) == .sha256)
        #expect(TusChecksumAlgorithm.choose(offered: ["crc32"]) == .sha1)
        #expect(TusChecksumAlgorithm.choose(offered: []) == .sha1)
    }

    func exchange(_ step: TusUploadStateMachine.Step) -> TusExchange? {
        if case .send(let exchange) = step.next { return exchange }
        return nil
    }

    func header(_ exchange: TusExchange?, _ name: String) -> String? {
        exchange?.headers.value(of: name)
    }

    @Test func discoversThenCreatesThenPatchesFromTheOffsetTheServerGives() {
        var (m, file) = machine(size: 40_000)
        let options = exchange(m.handle(.start(file: file)))
        #expect(options?.method == "OPTIONS")
        #expect(header(options, "Tus-Resumable") == "1.0.0")  // aiohttp-tus answers plain HTTP without it
        let create = exchange(m.handle(.answered(status: 204, headers: Self.options)))
        #expect(create?.method == "POST")
        #expect(header(create, "Upload-Length") == "40000")
        #expect(header(create, "Upload-Metadata") == "filename YS5iaW4=")
        #expect(header(create, "Tus-Resumable") == "1.0.0")
        #expect(create?.chunk == nil)  // no creation-with-upload offered
        // A relative Location is resolved against the creation URL.
        let created = m.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/abc")]))
        #expect(created.checkpoint?.uploadURL == "https://tus.example/files/abc")
        #expect(created.checkpoint?.offset == 0)
        let patch = exchange(created)
        #expect(patch?.method == "PATCH")
        #expect(patch?.url == "https://tus.example/files/abc")
        #expect(header(patch, "Upload-Offset") == "0")
        #expect(header(patch, "Content-Type") == "application/offset+octet-stream")
        #expect(patch?.chunk == 0..<16384)
        #expect(patch?.checksum == .sha1)  // offered: the mandatory one, and fast
        let second = m.handle(.answered(status: 204, headers: [HeaderField("Upload-Offset", "16384")]))
        #expect(second.checkpoint?.offset == 16384)
        #expect(exchange(second)?.chunk == 16384..<32768)
        let last = exchange(m.handle(.answered(status: 204, headers: [HeaderField("Upload-Offset", "32768")])))
        #expect(last?.chunk == 32768..<40000)
        let done = m.handle(.answered(status: 204, headers: [HeaderField("Upload-Offset", "40000")]))
        #expect(done.next == .done)
        #expect(m.resumedFrom == nil)
    }

    @Test func aCheckpointGoesOnWithHEADAndNeverResendsWhatTheServerHas() {
        let (_, file) = machine(size: 50_000)
        let saved = TusCheckpoint(uploadURL: "https://tus.example/files/x", offset: 16384, length: 50_000, file: file)
        var (m, _) = machine(size: 50_000, checkpoint: saved)
        _ = m.handle(.start(file: file))
        let head = exchange(m.handle(.answered(status: 204, headers: Self.options)))
        #expect(head?.method == "HEAD")
        #expect(head?.url == "https://tus.example/files/x")
        // The server got further than the checkpoint said before the crash.
        let step = m.handle(
            .answered(
                status: 200, headers: [HeaderField("Upload-Offset", "20000"), HeaderField("Upload-Length", "50000")]))
        #expect(exchange(step)?.chunk == 20000..<36384)
        #expect(m.resumedFrom == 20000)
    }

    @Test func aFaultMidPATCHAsksTheOffsetAgainOnTheNextAttempt() {
        var (m, file) = machine(size: 40_000)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        _ = m.handle(.answered(status: 201, headers: [HeaderField("Location", "https://tus.example/files/y")]))
        let failed = m.handle(.failed(.connectionLost("reset")))
        #expect(failed.next == .fail(.connectionLost("reset")))
        let head = exchange(m.handle(.start(file: file)))
        #expect(head?.method == "HEAD")
        let patch = exchange(m.handle(.answered(status: 200, headers: [HeaderField("Upload-Offset", "9000")])))
        #expect(patch?.chunk == 9000..<25384)
        #expect(m.resumedFrom == 9000)
    }

    @Test func conflictChecksumMismatchAndTooLargeEachGoOn() {
        var (m, file) = machine(size: 100_000, chunk: 64 << 10)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        let first = exchange(m.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/z")])))
        // 460: the same chunk again.
        let again = m.handle(.answered(status: 460, headers: []))
        #expect(exchange(again) == first)
        #expect(again.note?.contains("checksum mismatch") == true)
        // 409: ask the offset, then go on from it.
        let head = exchange(m.handle(.answered(status: 409, headers: [])))
        #expect(head?.method == "HEAD")
        let patch = exchange(m.handle(.answered(status: 200, headers: [HeaderField("Upload-Offset", "0")])))
        #expect(patch?.chunk == 0..<65536)
        // 413: half the chunk, after asking the offset.
        let shrunk = m.handle(.answered(status: 413, headers: []))
        #expect(shrunk.note?.contains("65536-byte chunk") == true)
        _ = exchange(shrunk)
        let smaller = exchange(m.handle(.answered(status: 200, headers: [HeaderField("Upload-Offset", "0")])))
        #expect(smaller?.chunk == 0..<32768)
        #expect(m.chunkSize == 32768)
    }

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

    @Test func checksumMismatchesWithoutEndAreAFailure() {
        var (m, file) = machine(size: 1000)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        _ = m.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/z")]))
        for _ in 0..<TusUploadStateMachine.patience { _ = m.handle(.answered(status: 460, headers: [])) }
        let step = m.handle(.answered(status: 460, headers: []))
        guard case .fail(.httpStatus(460, let message?)) = step.next else {
            Issue.record("expected a 460 failure, got \(step.next)")
            return
        }
        #expect(message.contains("did not match"))
    }

    @Test func aLostUploadStartsAgainFromZeroAndSaysSo() {
        let (_, file) = machine(size: 30_000)
        let saved = TusCheckpoint(uploadURL: "https://tus.example/files/old", offset: 16384, length: 30_000, file: file)
        var (m, _) = machine(size: 30_000, checkpoint: saved)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        let step = m.handle(.answered(status: 404, headers: []))
        #expect(
            step.note?.contains("no longer has the upload (HTTP 404 Not Found); starting again from byte 0") == true)
        #expect(exchange(step)?.method == "POST")
        #expect(m.upload == nil)
        // Lost again in the same attempt: a failure, not a loop.
        let created = m.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/new")]))
        #expect(created.checkpoint?.uploadURL == "https://tus.example/files/new")
        guard case .fail(.httpStatus(410, _)) = m.handle(.answered(status: 410, headers: [])).next else {
            Issue.record("a second loss must fail the attempt")
            return
        }
    }

    /// A URL that is not a tus endpoint (here a form handler: no Tus-Version
    /// to OPTIONS, 200 to any POST) is named as such, not as a server bug.
    @Test func aCreationWithoutAnUploadURLSaysWhy() {
        func create(answering status: Int, _ headers: [HeaderField]) -> TusUploadStateMachine.Step {
            var (m, file) = machine()
            _ = m.handle(.start(file: file))
            _ = m.handle(.answered(status: 405, headers: []))
            return m.handle(.answered(status: status, headers: headers))
        }
        #expect(
            create(answering: 200, []).next
                == .fail(
                    .protocolError(
                        "the server answered HTTP 200 OK with no Location, not 201 Created with the upload's URL:"
                            + " the URL does not look like a tus creation endpoint")))
        #expect(
            create(answering: 201, []).next
                == .fail(
                    .protocolError("the server created the upload (HTTP 201 Created) but its answer has no Location")))
        #expect(
            create(answering: 201, [HeaderField("Location", "ftp://elsewhere/1")]).next
                == .fail(
                    .protocolError(
                        "the server created the upload but its Location \"ftp://elsewhere/1\" is not an http(s) URL")))
    }

    @Test func versionsLimitsAndMediaTypeAreNamedFailures() {
        var (m, file) = machine(size: 5000)
        _ = m.handle(.start(file: file))
        let other = m.handle(.answered(status: 204, headers: [HeaderField("Tus-Version", "0.2.2,0.2.1")]))
        // An OPTIONS answer that is not tus's (no Tus-Version) is not a refusal.
        var (plainHTTP, _) = machine(size: 5000)
        _ = plainHTTP.handle(.start(file: file))
        #expect(exchange(plainHTTP.handle(.answered(status: 200, headers: [])))?.method == "POST")
        #expect(other.next == .fail(.protocolError("the server speaks tus 0.2.2, 0.2.1; hoist speaks 1.0.0")))

        var (small, _) = machine(size: 5000)
        _ = small.handle(.start(file: file))
        let limit = small.handle(
            .answered(status: 204, headers: Self.options + [HeaderField("Tus-Max-Size", "4096")]))
        #expect(
            limit.next
                == .fail(.protocolError("the file is 5000 bytes and the server takes at most 4096 (Tus-Max-Size)")))

        var (m412, _) = machine(size: 5000)
        _ = m412.handle(.start(file: file))
        _ = m412.handle(.answered(status: 204, headers: Self.options))
        let refused = m412.handle(.answered(status: 412, headers: [HeaderField("Tus-Version", "2.0.0")]))
        #expect(refused.next == .fail(.httpStatus(412, message: "the server speaks tus 2.0.0; hoist speaks 1.0.0")))

        var (m415, _) = machine(size: 5000)
        _ = m415.handle(.start(file: file))
        _ = m415.handle(.answered(status: 204, headers: Self.options))
        _ = m415.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/q")]))
        guard case .fail(.httpStatus(415, let message?)) = m415.handle(.answered(status: 415, headers: [])).next else {
            Issue.record("415 must fail with its reason")
            return
        }
        #expect(message.contains("application/offset+octet-stream"))
    }

    @Test func aServerWithoutOPTIONSStillGetsTheCoreProtocol() {
        var (m, file) = machine(size: 10)
        _ = m.handle(.start(file: file))
        let create = exchange(m.handle(.answered(status: 405, headers: [])))
        #expect(create?.method == "POST")
    }

    @Test func creationWithUploadCarriesTheFirstChunk() {
        var (m, file) = machine(size: 20_000)
        _ = m.handle(.start(file: file))
        let create = exchange(
            m.handle(
                .answered(
                    status: 204,
                    headers: [
                        HeaderField("Tus-Version", "1.0.0"),
                        HeaderField("Tus-Extension", "creation,creation-with-upload"),
                    ])))
        #expect(create?.chunk == 0..<16384)
        #expect(header(create, "Content-Type") == "application/offset+octet-stream")
        let step = m.handle(
            .answered(status: 201, headers: [HeaderField("Location", "/f/1"), HeaderField("Upload-Offset", "16384")]))
        #expect(exchange(step)?.chunk == 16384..<20000)
        #expect(exchange(step)?.checksum == nil)  // no checksum extension offered
    }

    /// The engine hashes the first `PATCH`'s chunk while the creation
    /// carries the one before it; that hash must be the one the `PATCH` sends.
    @Test func theChunkAfterACreationWithUploadIsHashedAheadWithThePatchsAlgorithm() {
        var (m, file) = machine(size: 40_000)
        _ = m.handle(.start(file: file))
        #expect(m.checksumAlgorithm == nil)  // nothing is known of the server yet
        let create = exchange(
            m.handle(
                .answered(
                    status: 204,
                    headers: Self.options.map {
                        $0.name == "Tus-Extension" ? HeaderField($0.name, "creation,creation-with-upload,checksum") : $0
                    })))
        let carried = create?.chunk
        #expect(carried == 0..<16384)
        #expect(create?.checksum == nil)
        #expect(m.checksumAlgorithm == .sha1)
        let ahead = carried.flatMap { m.chunk(following: $0) }
        let patch = exchange(
            m.handle(
                .answered(
                    status: 201, headers: [HeaderField("Location", "/f/1"), HeaderField("Upload-Offset", "16384")])))
        #expect(patch?.chunk == ahead)
        #expect(patch?.checksum == .sha1)
    }

    @Test func aFileChangedSinceTheUploadWasCreatedIsNeverAppended() throws {
        var (m, file) = machine(size: 40_000)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        _ = m.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/c")]))
        _ = m.handle(.failed(.connectionLost("reset")))
        let path = directory.file("a.bin", Array(repeating: 8, count: 40_001))
        let step = m.handle(.start(file: FileSnapshot(path: path)!))
        guard case .fail(.input(.fileChanged(_, _, let detail))) = step.next else {
            Issue.record("expected a refusal, got \(step.next)")
            return
        }
        #expect(detail.contains("not appended to https://tus.example/files/c"))
    }

    @Test func terminationIsOfferedOnlyWhenTheServerSaysSo() {
        var (m, file) = machine(size: 10)
        _ = m.handle(.start(file: file))
        _ = m.handle(.answered(status: 204, headers: Self.options))
        _ = m.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/d")]))
        #expect(m.termination()?.method == "DELETE")
        #expect(m.termination()?.url == "https://tus.example/files/d")

        var (plain, _) = machine(size: 10)
        _ = plain.handle(.start(file: file))
        _ = plain.handle(
            .answered(
                status: 204, headers: [HeaderField("Tus-Version", "1.0.0"), HeaderField("Tus-Extension", "creation")]))
        _ = plain.handle(.answered(status: 201, headers: [HeaderField("Location", "/files/e")]))
        #expect(plain.termination() == nil)
    }

    @Test func metadataIsBase64AndKeysAreChecked() {
        #expect(
            TusMetadata.encode([("filename", "身份证 正面.jpg"), ("empty", "")])
                == "filename 6Lqr5Lu96K+BIOato+mdoi5qcGc=,empty")
        #expect(TusMetadata.problem(withKey: "ok_key") == nil)
        #expect(TusMetadata.problem(withKey: "two words") != nil)
        #expect(TusMetadata.problem(withKey: "a,b") != nil)
        #expect(TusMetadata.problem(withKey: "名") != nil)
    }
}
