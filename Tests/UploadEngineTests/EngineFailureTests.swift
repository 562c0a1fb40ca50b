import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// Resets, 5xx, timeouts, 413, refused connections, bad answers: each gives a
/// clear failure or a retry that works.
@Suite(.serialized) struct EngineFailureTests {
    func fileForm(_ h: Harness, size: Int, name: String = "big.bin") -> (MultipartForm, [UInt8]) {
        let file = randomFile(h, name, size: size, seed: UInt64(size))
        return (MultipartForm(parts: [.file("file", path: file.path)]), file.bytes)
    }

    @Test func resetMidBodyThenSuccessfulRetry() async throws {
        try await Harness.run(configure: {
            $0.resetFirst = 1
            $0.resetAfterBodyBytes = 200_000
        }) { h in
            let (form, bytes) = fileForm(h, size: 2_000_000)
            let id = try h.engine.add(UploadRequest(url: h.url, body: .multipart(form), retry: fastRetry))
            let done = try await h.finish(id)
            #expect(done.state == .succeeded)
            #expect(done.attempts == 2)
            #expect(try received(done).files.first?.sha256 == sha256(bytes))
            let history = h.events.snapshots(of: id)
            expectMonotonicProgress(history)
            #expect(history.contains { if case .waitingToRetry = $0.state { true } else { false } })
            #expect(
                history.contains { $0.progress.attempt == 2 && $0.progress.bytesSent == 0 },
                "the retry starts a new attempt from zero")
            #expect(done.progress.attempt == 2 && done.progress.bytesSent == done.progress.totalBytes)
            // Nothing half-written stays on the receiving side.
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.saved.path).count == 1)
        }
    }

    @Test func unavailableWithRetryAfterIsHonoured() async throws {
        try await Harness.run(configure: {
            $0.failFirst = 1
            $0.retryAfterSeconds = 1
        }) { h in
            let (form, _) = fileForm(h, size: 10_000)
            let id = try h.engine.add(UploadRequest(url: h.url, body: .multipart(form), retry: fastRetry))
            let done = try await h.finish(id)
            #expect(done.state == .succeeded)
            #expect(done.attempts == 2)
            #expect(done.retryDelay == .seconds(1), "Retry-After: 1 wins over the 10 ms backoff")
        }
    }

    @Test func serverErrorsExhaustTheRetries() async throws {
        try await Harness.run(configure: { $0.failFirst = 10 }) { h in
            let (form, _) = fileForm(h, size: 1_000)
            var policy = fastRetry
            policy.maxRetryAfter = .milliseconds(20)
            let id = try h.engine.add(UploadRequest(url: h.url, body: .multipart(form), retry: policy))
            let done = try await h.finish(id)
            #expect(done.failure == .httpStatus(503, message: nil))
            #expect(done.attempts == 4, "one attempt and 3 retries")
            #expect(done.response?.status == 503)
        }
    }

    @Test func idleTimeout() async throws {
        try await Harness.run { h in
            // Larger than the loopback socket buffers, so the stall is felt.
            let (form, _) = fileForm(h, size: 40_000_000)
            let request = UploadRequest(
                url: h.url + "?stall=1500", body: .multipart(form), timeouts: Timeouts(idle: .milliseconds(400)),
                retry: .none)
            let done = try await h.finish(try h.engine.add(request))
            #expect(done.failure == .idleTimeout(.milliseconds(400)))
            #expect(done.failure?.description == "no bytes moved for 0.4 s (idle timeout)")
            #expect(done.progress.bytesSent < done.progress.totalBytes!)
        }
    }

    /// While the receiver holds the socket full, the same count is told
    /// again every half second, so the speed falls instead of keeping the rate
    /// of the burst that filled the socket (and the ETA grows).
    @Test func aStalledUploadsSpeedFallsWhileItWaits() async throws {
        try await Harness.run { h in
            // Larger than the loopback socket buffers, so the stall is felt.
            let (form, _) = fileForm(h, size: 40_000_000)
            let id = try h.engine.add(
                UploadRequest(url: h.url + "?stall=2500", body: .multipart(form), retry: .none))
            let done = try await h.finish(id)
            #expect(done.state == .succeeded, "\(String(describing: done.failure))")
            // The longest run of events with one count, while sending.
            var run: [Double] = []
            var longest: [Double] = []
            var count: Int64 = -1
            for snapshot in h.events.snapshots(of: id) where snapshot.state == .sending {
                if snapshot.progress.bytesSent == count, snapshot.progress.bytesSent > 0 {
                    run.append(snapshot.progress.bytesPerSecond)
                } else {
                    run = [snapshot.progress.bytesPerSecond]
                    count = snapshot.progress.bytesSent
                }
                if run.count > longest.count { longest = run }
            }
            #expect(longest.count >= 4, "\(longest)")
            #expect(zip(longest, longest.dropFirst()).allSatisfy { $0 > $1 }, "falling: \(longest)")
            #expect(longest.last! < longest.first! / 2, "\(longest)")
        }
    }

    @Test func tooLargeIsAClearFailureAndNever100Percent() async throws {
        try await Harness.run(configure: { $0.maxBodySize = 100_000 }) { h in
            // Larger than the loopback socket buffers: a smaller body can be
            // all in the kernel before the answer comes, and then it was sent.
            let (form, _) = fileForm(h, size: 40_000_000)
            let done = try await h.finish(
                try h.engine.add(UploadRequest(url: h.url, body: .multipart(form), retry: fastRetry)))
            #expect(done.failure == .httpStatus(413, message: nil))
            #expect(done.attempts == 1, "413 is not retried")
            #expect(done.answeredEarly)
            #expect(done.progress.bytesSent < done.progress.totalBytes!)
            #expect(done.progress.fraction! < 1)
            #expect(done.failure!.description.contains("413 Content Too Large"))
            #expect(done.failure!.description.contains("too large"))
        }
    }

    @Test func earlySuccessBeforeTheBodyWasReadIsNotASuccess() async throws {
        try await Harness.run { h in
            let (form, _) = fileForm(h, size: 20_000_000)
            let done = try await h.finish(
                try h.engine.add(UploadRequest(url: h.url + "?early=1", body: .multipart(form), retry: .none)))
            #expect(done.answeredEarly)
            #expect(done.response?.status == 200)
            guard case .answeredEarly(200, let sent, let total)? = done.failure else {
                Issue.record("expected answeredEarly, got \(done.state)")
                return
            }
            #expect(sent == done.progress.bytesSent)
            #expect(sent < total!)
        }
    }

    @Test func refusedConnection() async throws {
        let port = unusedPort()
        let engine = UploadEngine(configuration: .init(environment: [:]))
        let id = try engine.add(
            UploadRequest(url: "http://127.0.0.1:\(port)/upload", body: .json(Array("{}".utf8)), retry: .none))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        guard case .connectionFailed(let detail)? = done.failure else {
            Issue.record("expected connectionFailed, got \(done.state)")
            return
        }
        #expect(detail.contains("refused"))
    }

    @Test func invalidJSONIsShownAsText() async throws {
        try await Harness.run { h in
            let done = try await h.finish(
                try h.engine.add(UploadRequest(url: h.url + "?reply=invalid-json", body: .json(Array("{}".utf8)))))
            #expect(done.state == .succeeded)
            guard case .invalidJSON(let text, let error)? = done.response?.content else {
                Issue.record("expected invalid JSON, got \(String(describing: done.response?.content))")
                return
            }
            #expect(text == #"{"broken": "#)
            #expect(error.contains("unexpected end of input"))
        }
    }

    @Test func failedExpectationShowsTheMessageField() async throws {
        try await Harness.run { h in
            let reply = #"{"RETCODE":"0001","RETMSG":"photo is blurry"}"#.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            let rule = SuccessRule(expectations: [.init(path: "RETCODE", value: "0000")], messagePath: "RETMSG")
            let done = try await h.finish(
                try h.engine.add(
                    UploadRequest(url: h.url + "?json=" + reply, body: .json(Array("{}".utf8)), success: rule)))
            #expect(
                done.failure
                    == .expectationFailed(
                        path: "RETCODE", expected: "0000", actual: "0001", message: "photo is blurry", reason: nil))
            #expect(done.failure?.serverMessage == "photo is blurry")
            #expect(done.attempts == 1)
        }
    }

    @Test func badInputIsRefusedBeforeAnythingIsSent() async throws {
        try await Harness.run { h in
            let missing = h.files.path + "/front.jpg"
            #expect(throws: UploadFailure.input(.fileNotFound(field: "image", path: missing))) {
                try h.engine.add(
                    UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("image", path: missing)]))))
            }
            #expect(throws: UploadFailure.input(.isDirectory(field: "image", path: h.files.path))) {
                try h.engine.add(
                    UploadRequest(
                        url: h.url, body: .multipart(MultipartForm(parts: [.file("image", path: h.files.path)]))))
            }
            #expect(throws: UploadFailure.invalidURL("htp://x", reason: "the scheme must be http or https")) {
                try h.engine.add(UploadRequest(url: "htp://x", body: .json([])))
            }
            #expect(h.engine.snapshots().isEmpty)
            #expect(h.receiver.requestCount == 0)
        }
    }

    /// A file cut short or grown while its bytes are going out fails the
    /// task as changed, however its bytes are sent: from a mapping (where a
    /// cut must never end the process), by sendfile (where a cut must not
    /// stall the upload) or through the thread pool.
    @Test(arguments: [FileSending.automatic, .sendfile, .threadPool], [1_000_000, 40_000_000])
    func aFileChangedDuringItsUploadFailsAsChanged(sending: FileSending, newSize: Int) async throws {
        try await Harness.run(fileSending: sending, configure: { $0.readBytesPerSecond = 8_000_000 }) { h in
            let file = randomFile(h, "身份证 正面.bin", size: 32_000_000, seed: 9)
            let id = try h.engine.add(
                UploadRequest(
                    url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: file.path)])), retry: fastRetry)
            )
            let started = ContinuousClock.now
            while (h.events.snapshots(of: id).last?.progress.bytesSent ?? 0) < 4_000_000,
                ContinuousClock.now - started < .seconds(20)
            {
                try await Task.sleep(for: .milliseconds(10))
            }
            // Under a lease, the truncation waits in the kernel until hoist lets go.
            #expect(truncate(file.path, off_t(newSize)) == 0)
            var info = stat()
            #expect(stat(file.path, &info) == 0 && info.st_size == off_t(newSize), "the change went through")
            let done = try await h.finish(id)
            guard case .failed(.input(.fileChanged(let field, let path, _))) = done.state else {
                Issue.record("expected the file to be reported as changed, got \(done.state)")
                return
            }
            #expect(field == "f" && path == file.path)
            #expect(done.attempts == 1)
            #expect(h.receiver.requestCount == 1)
        }
    }

    /// No lease can be taken on a file another program holds open for
    /// writing; its bytes then go by sendfile, whole.
    @Test func aFileOpenForWritingElsewhereIsStillSentWhole() async throws {
        try await Harness.run { h in
            let file = randomFile(h, "open.bin", size: 5_000_000, seed: 3)
            let writer = open(file.path, O_WRONLY)
            #expect(writer >= 0)
            defer { close(writer) }
            let done = try await h.finish(
                try h.engine.add(
                    UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: file.path)])))))
            #expect(done.state == .succeeded)
            #expect(try received(done).files.first?.sha256 == sha256(file.bytes))
        }
    }

    @Test func fileDeletedBeforeItsTurnFailsClearly() async throws {
        try await Harness.run(concurrency: 1) { h in
            let first = randomFile(h, "first.bin", size: 10, seed: 1)
            let second = randomFile(h, "second.bin", size: 10, seed: 2)
            h.engine.pause()
            _ = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: first.path)]))))
            let id = try h.engine.add(
                UploadRequest(
                    url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: second.path)])),
                    retry: fastRetry))
            unlink(second.path)
            h.engine.resume()
            let done = try await h.finish(id)
            #expect(done.failure == .input(.fileNotFound(field: "f", path: second.path)))
            #expect(done.attempts == 1)
        }
    }
}

/// A loopback port with nothing listening on it.
func unusedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
