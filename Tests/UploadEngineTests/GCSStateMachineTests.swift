import FormData
import Glibc
import TestSupport
import Testing
import WireRules

@testable import UploadEngine

/// The GCS driver's state machine fed answers, with no socket: each test
/// asserts the next request it asks for, as Google documents the protocol.
@Suite struct GCSStateMachineTests {
    let directory = TemporaryDirectory()

    /// `saved`: a session of this very file, holding that many bytes.
    func machine(size: Int, chunk: Int64 = 256 << 10, checkpoint: GCSCheckpoint? = nil, saved: Int64? = nil)
        -> (GCSUploadStateMachine, FileSnapshot)
    {
        let path = directory.file("a.bin", Array(repeating: 7, count: size))
        let checkpoint =
            saved.map {
                GCSCheckpoint(
                    sessionURL: "https://storage.example/s?upload_id=u", offset: $0, length: Int64(size),
                    file: FileSnapshot(path: path))
            } ?? checkpoint
        let settings = GCSSettings(
            endpoint: "https://storage.example/", bucket: "scans", object: "in/身份证 a.jpg",
            chunkSize: .fixed(chunk), contentType: "image/jpeg", singleRequestLimit: chunk)
        return (
            GCSUploadStateMachine(settings: settings, checkpoint: checkpoint.map { TransferCheckpoint($0) }),
            FileSnapshot(path: path)!
        )
    }

    func answer(_ status: Int, _ headers: [HeaderField] = [], _ body: String = "") -> GCSUploadStateMachine.Event {
        .answered(status: status, headers: headers, body: Array(body.utf8))
    }

    func range(_ step: GCSUploadStateMachine.Step) -> String? {
        step.exchange?.headers.first { $0.name == "Content-Range" }?.value
    }

    @Test func aSmallFileIsOneMediaRequestNamedInTheQuery() {
        var (machine, file) = machine(size: 1000)
        let step = machine.handle(.start(file: file))
        #expect(step.exchange?.kind == .media && step.exchange?.method == "POST")
        #expect(
            step.exchange?.url
                == "https://storage.example/upload/storage/v1/b/scans/o?uploadType=media&name=in%2F%E8%BA%AB%E4%BB%BD%E8%AF%81%20a.jpg"
        )
        #expect(step.exchange?.chunk == 0..<1000 && step.exchange?.isLast == true)
        let done = machine.handle(answer(200, [], #"{"size":"1000"}"#))
        #expect(done.end == .done && machine.offset == 1000)
    }

    @Test func aSessionSendsGranularChunksAndGoesOnFromWhatEach308Says() {
        let size = (256 << 10) * 2 + 100
        var (machine, file) = machine(size: size)
        let begin = machine.handle(.start(file: file))
        #expect(begin.exchange?.kind == .begin)
        #expect(begin.exchange?.headers.contains(HeaderField("X-Upload-Content-Length", String(size))) == true)
        let first = machine.handle(answer(200, [HeaderField("Location", "/session?upload_id=u1")]))
        #expect(first.checkpoint?.sessionURL == "https://storage.example/session?upload_id=u1")
        #expect(first.checkpoint?.offset == 0)
        #expect(range(first) == "bytes 0-262143/\(size)" && first.exchange?.method == "PUT")
        // The server kept only part of the chunk: the next one starts there.
        let second = machine.handle(answer(308, [HeaderField("Range", "bytes=0-99999")]))
        #expect(second.checkpoint?.offset == 100_000)
        #expect(range(second) == "bytes 100000-362143/\(size)")
        let third = machine.handle(answer(308, [HeaderField("Range", "bytes=0-362143")]))
        #expect(range(third) == "bytes 362144-\(size - 1)/\(size)" && third.exchange?.isLast == true)
        let done = machine.handle(answer(200, [], #"{"size":"\#(size)"}"#))
        #expect(done.end == .done && machine.offset == Int64(size))
    }

    @Test func a308ThatKeptNothingEndsTheAttemptToAskAgain() {
        var (machine, file) = machine(size: 600 << 10)
        _ = machine.handle(.start(file: file))
        _ = machine.handle(answer(200, [HeaderField("Location", "https://storage.example/s")]))
        let step = machine.handle(answer(308))
        guard case .fail(_, let recheck)? = step.end else {
            Issue.record("\(step)")
            return
        }
        #expect(recheck)
    }

    @Test func aRestoredSessionIsAskedFirstAndGoesOnFromThere() {
        let size = 600 << 10
        var (machine, file) = machine(size: size, saved: 262_144)
        let ask = machine.handle(.start(file: file))
        #expect(ask.exchange?.kind == .status && range(ask) == "bytes */\(size)")
        #expect(ask.exchange?.chunk == nil)
        let next = machine.handle(answer(308, [HeaderField("Range", "bytes=0-524287")]))
        #expect(machine.resumedFrom == 524_288 && range(next) == "bytes 524288-\(size - 1)/\(size)")
    }

    @Test func anExpiredSessionStartsANewOneAndSaysSo() {
        let size = 600 << 10
        var (machine, file) = machine(size: size, saved: 262_144)
        _ = machine.handle(.start(file: file))
        let step = machine.handle(answer(410))
        #expect(step.exchange?.kind == .begin && step.sessionLost)
        #expect(step.note?.contains("expired (HTTP 410)") == true)
        #expect(machine.offset == 0)
    }

    @Test func aChangedFileAbandonsItsSession() {
        let saved = GCSCheckpoint(
            sessionURL: "https://storage.example/old", offset: 262_144, length: 600 << 10, file: nil)
        var (machine, file) = machine(size: 600 << 10, checkpoint: saved)
        let step = machine.handle(.start(file: file))
        #expect(step.abandoned == "https://storage.example/old" && step.exchange?.kind == .begin)
        #expect(step.note?.contains("changed") == true)
    }

    @Test func failuresSayWhetherTheServerIsToBeAskedAgain() {
        var (machine, file) = machine(size: 600 << 10)
        _ = machine.handle(.start(file: file))
        _ = machine.handle(answer(200, [HeaderField("Location", "https://storage.example/s")]))
        let unavailable = machine.handle(answer(503))
        #expect(unavailable.end == .fail(.httpStatus(503, message: nil), recheck: true))

        var (other, same) = self.machine(size: 600 << 10)
        _ = other.handle(.start(file: same))
        let refused = other.handle(
            answer(403, [], #"{"error":{"code":403,"message":"hoist@x has no storage.objects.create access"}}"#))
        #expect(
            refused.end
                == .fail(.httpStatus(403, message: "hoist@x has no storage.objects.create access"), recheck: false))
        var (third, file3) = self.machine(size: 600 << 10)
        _ = third.handle(.start(file: file3))
        let noLocation = third.handle(answer(200))
        guard case .fail(.protocolError(let text), false)? = noLocation.end else {
            Issue.record("\(noLocation)")
            return
        }
        #expect(text.contains("no Location"))
    }

    @Test func rangesAndChecksumsReadAsGoogleWritesThem() {
        #expect(GCSUploadStateMachine.heldBytes(nil) == 0)
        #expect(GCSUploadStateMachine.heldBytes("bytes=0-9") == 10)
        #expect(GCSUploadStateMachine.heldBytes("bytes=5-9") == nil)
        #expect(GCSUploadStateMachine.heldBytes("junk") == nil)
        let check = Array("123456789".utf8)
        #expect(CRC32C.of(check) == 0xE306_9283)
        var generator = SeededGenerator(state: 5)
        let bytes = randomBytes(100_003, using: &generator)
        // In two pieces, in hardware where the CPU has it: the same as the table in one.
        var fast = CRC32C()
        bytes.withUnsafeBytes {
            fast.updateFast(.init(rebasing: $0[..<7]))
            fast.updateFast(.init(rebasing: $0[7...]))
        }
        #expect(fast.value == CRC32C.of(bytes))
        #expect(CRC32C(value: 0xE306_9283).base64 == "4waSgw==")
        #expect(URIComponent.escaped("a/b c+é") == "a%2Fb%20c%2B%C3%A9")
        #expect(GCSSettings.granular(1) == 256 << 10 && GCSSettings.granular(300 << 10) == 512 << 10)
    }
}
