import Foundation
import TestSupport
import Testing

@testable import Receiver

/// Slowloris and stalled clients, as a Python socket client plays them:
/// the receiver answers 408 with a JSON error or closes, and never waits forever.
@Suite struct ConnectionDeadlineTests {
    /// Prints the answer's first line (or "closed"), its JSON, and the seconds it took.
    static let client = #"""
        import json, socket, sys, time
        port, mode = int(sys.argv[1]), sys.argv[2]
        s = socket.create_connection(("127.0.0.1", port))
        s.settimeout(15)
        start = time.time()
        try:
            if mode == "slow-head":
                s.sendall(b"POST /upload HTTP/1.1\r\nHost: x\r\n")
                for _ in range(40):
                    s.sendall(b"X-Slow: 1\r\n")
                    time.sleep(0.1)
            elif mode == "stalled-body":
                s.sendall(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                          b"Content-Length: 100000\r\n\r\n" + b"a" * 5000)
            elif mode == "idle-keep-alive":
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                first = s.recv(65536).split(b"\r\n")[0].decode()
                start = time.time()
                print(first)
        except OSError as error:
            pass  # the server closed while this client was still sending
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                data += chunk
        except OSError:
            pass
        head, _, body = data.partition(b"\r\n\r\n")
        print(head.split(b"\r\n")[0].decode() or "closed")
        print(body.decode())
        print(round(time.time() - start, 2))
        """#

    func play(_ mode: String, port: Int) async throws -> (status: String, body: String, seconds: Double) {
        let result = try await Subprocess.run(
            "/usr/bin/env", ["python3", "-c", Self.client, "\(port)", mode], timeout: .seconds(60))
        let lines = String(decoding: result.stdout, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        let tail = lines.suffix(4).map(String.init)
        return (tail[0], tail[1], Double(tail[2]) ?? -1)
    }

    func configure(_ configuration: inout ReceiverConfiguration) {
        configuration.headTimeout = .milliseconds(800)
        configuration.idleTimeout = .milliseconds(800)
    }

    @Test func aHeadSentAByteAtATimeGets408AndTheConnectionCloses() async throws {
        try await withReceiver(configure) { server in
            let answer = try await play("slow-head", port: server.receiver.port)
            #expect(answer.status == "HTTP/1.1 408 Request Timeout")
            let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: String]
            #expect(json?["error"] == "the request head did not arrive within 0.8 s (--head-timeout)")
            #expect(answer.seconds < 3.5, "the client kept sending for 4 s")
        }
    }

    @Test func aBodyThatStopsGets408() async throws {
        try await withReceiver(configure) { server in
            let answer = try await play("stalled-body", port: server.receiver.port)
            #expect(answer.status == "HTTP/1.1 408 Request Timeout")
            #expect(answer.body == #"{"error":"no bytes of the body arrived for 0.8 s (--idle-timeout)"}"#)
            // Below the client's own 15 s: the receiver ended the wait. A full
            // test run on 2 cores has delayed the answer past 5 s (the handler
            // runs on Swift's cooperative pool, which busy tests hold).
            #expect(answer.seconds >= 0.7 && answer.seconds < 14)
            try await eventually { server.entries.contains { $0.status == 408 && $0.bodyBytes == 5000 } }
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosed() async throws {
        try await withReceiver(configure) { server in
            let answer = try await play("idle-keep-alive", port: server.receiver.port)
            #expect(answer.status == "closed")
            #expect(answer.seconds >= 0.7 && answer.seconds < 5)
        }
    }

    /// The receiver reading slowly (a full socket) is not the client stalling.
    @Test func aSlowReaderIsNotATimeout() async throws {
        try await withReceiver({
            $0.idleTimeout = .seconds(2)
            $0.readBytesPerSecond = 1 << 20
        }) { server in
            let bytes = [UInt8](repeating: 7, count: 5 << 20)
            let file = server.scratch.file("big.bin", bytes)
            let result = try await Curl.run(["-F", "f=@\(file)", server.url + "/upload"])
            #expect(result.status == 200, "\(result.stderr) \(String(decoding: result.body, as: UTF8.self))")
            let whole = fileBytes(server.saved("big.bin")) == bytes
            #expect(whole, "the file arrived whole")
        }
    }
}

/// An error answer names what went wrong relative to the upload folder,
/// never the server's absolute path.
@Suite struct ErrorAnswerPathTests {
    @Test func aSaveFailureDoesNotRevealWhereTheServerKeepsFiles() async throws {
        try await withReceiver { server in
            // A file where the tus folder should be: creating an upload fails.
            FileManager.default.createFile(atPath: server.directory + "/.tus", contents: Data("x".utf8))
            let result = try await Curl.run([
                "-X", "POST", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Length: 5", server.url + "/files",
            ])
            let body = String(decoding: result.body, as: UTF8.self)
            #expect(result.status == 500, "\(body)")
            #expect(body.contains(".tus is not a directory"), "\(body)")
            #expect(!body.contains(server.directory), "\(body)")
            #expect(!body.contains(server.scratch.path), "\(body)")
        }
    }
}
