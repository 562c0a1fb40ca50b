import FormData
import Glibc
import TestSupport
import Testing

@testable import UploadEngine

/// Answers the driver cannot go on from: each a named failure, not a loop.
extension TusStateMachineTests {
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
}
