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
