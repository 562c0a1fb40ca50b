import FormData
import Foundation
import Glibc
import NIOConcurrencyHelpers
import TestSupport
import Testing

@testable import UploadEngine

/// A server that answers and closes the connection as soon as the body is
/// in, as werkzeug's development server (moto's) and HTTP/1.0-style servers
/// do. Hoist must take that answer, even while Swift's task pool is busy:
/// CI once saw six PutObjects that moto had answered 200 fail as "the
/// server closed the connection".
@Suite(.serialized) struct ClosingServerTests {
    static let script = #"""
        import socket, sys, threading
        s = socket.socket()
        s.bind(("127.0.0.1", 0)); s.listen(50)
        def serve(c):
            data = b""
            while b"\r\n\r\n" not in data:
                d = c.recv(65536)
                if not d: return c.close()
                data += d
            head, body = data.split(b"\r\n\r\n", 1)
            length = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0]
            while len(body) < length:
                d = c.recv(1 << 20)
                if not d: return c.close()
                body += d
            if sys.argv[1] == "whole":
                # An empty answer, as moto gives a PutObject: its head is its end.
                c.sendall(b"HTTP/1.1 200 OK\r\nETag: \"%d\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" % len(body))
            else:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\nConnection: close\r\n\r\n{\"cut")
            c.close()
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """#

    let files = TemporaryDirectory()

    func server(answering answer: String) async throws -> (Subprocess, port: Int) {
        let server = try Subprocess("/usr/bin/env", ["python3", "-c", Self.script, answer], timeout: .seconds(300))
        return (server, try await Subprocess.listeningPort(of: server.pid))
    }

    /// Above the size read whole: this body is streamed.
    func photo() -> String {
        var generator = SeededGenerator(state: 7)
        return files.file("身份证 正面.jpg", randomBytes(300_000, using: &generator))
    }

    @Test(arguments: [FileSending.automatic, .sendfile, .threadPool])
    func anAnswerFollowedByACloseIsTakenWhileTheTaskPoolIsBusy(_ sending: FileSending) async throws {
        let (server, port) = try await server(answering: "whole")
        defer { kill(server.pid, SIGKILL) }
        let path = photo()
        let engine = UploadEngine(configuration: .init(concurrency: 1, environment: [:], fileSending: sending))
        for round in 1...3 {
            // Tasks that hold every thread of the pool in turn until the upload
            // ends: the writing task resumes late, so the body must end
            // without it, and an answer that still beats the end is taken.
            let stop = NIOLockedValueBox(false)
            let hogs = (0..<8).map { _ in
                Task.detached {
                    while !stop.withLockedValue({ $0 }) {
                        let until = ContinuousClock.now + .milliseconds(20)
                        while ContinuousClock.now < until {}
                        await Task.yield()
                    }
                }
            }
            let id = try engine.add(
                UploadRequest(
                    url: "http://127.0.0.1:\(port)/cards/\(round)", method: .put,
                    body: .rawFile(path: path, contentType: "image/jpeg"), retry: .none))
            let done = try #require(await engine.result(of: id))
            stop.withLockedValue { $0 = true }
            for hog in hogs { await hog.value }
            #expect(done.state == .succeeded, "round \(round): \(done.state)")
            #expect(done.response?.status == 200)
            #expect(done.response?.header("ETag") == #""300000""#)
        }
        await engine.shutdown()
    }

    @Test func anAnswerCutShortByTheCloseIsAFailure() async throws {
        let (server, port) = try await server(answering: "cut")
        defer { kill(server.pid, SIGKILL) }
        let engine = UploadEngine(configuration: .init(environment: [:]))
        let id = try engine.add(
            UploadRequest(
                url: "http://127.0.0.1:\(port)/cards", method: .put,
                body: .rawFile(path: photo(), contentType: "image/jpeg"), retry: .none))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        #expect(done.failure == .connectionLost("the server closed the connection in the middle of its answer"))
    }
}
