import Foundation
import Receiver
import TestSupport
import Testing

/// The server-wide knobs of ReceiverConfiguration.
@Suite struct ServerKnobTests {
    let files = TemporaryDirectory()

    @Test func failFirstAnswers503WithRetryAfterThenAccepts() async throws {
        let path = files.file("a.txt", Array("abc".utf8))
        try await withReceiver({
            $0.failFirst = 1
            $0.retryAfterSeconds = 7
        }) { server in
            let first = try await Curl.run(["-F", "f=@\(path)", server.url + "/upload"])
            #expect(first.status == 503)
            #expect(first.header("Retry-After") == "7")
            #expect((try first.json()["error"] as? String)?.contains("failFirst") == true)
            #expect(server.savedFiles == [])

            let second = try await Curl.run(["-F", "f=@\(path)", server.url + "/upload"])
            #expect(second.status == 200)
            #expect(server.savedFiles == ["a.txt"])
            #expect(server.receiver.requestCount == 2)
        }
    }

    @Test func maxBodySizeRefusesByContentLengthAndWhileStreaming() async throws {
        let path = writeLargeFile(files.sub("two.bin"), mebibytes: 2)
        let small = files.file("small.txt", Array("ok".utf8))
        try await withReceiver({ $0.maxBodySize = 1 << 20 }) { server in
            let declared = try await Curl.run(["-F", "f=@\(path)", server.url + "/upload"])
            #expect(declared.status == 413)
            let message = try declared.json()["error"] as? String
            #expect(message?.hasPrefix("body of ") == true)
            #expect(message?.hasSuffix(" bytes is larger than the limit of 1048576 bytes") == true)
            #expect(declared.header("Connection") == "close")

            let chunked = try await Curl.run([
                "-H", "Transfer-Encoding: chunked", "-F", "f=@\(path)", server.url + "/upload",
            ])
            #expect(chunked.status == 413)
            #expect(try chunked.json()["error"] as? String == "body is larger than the limit of 1048576 bytes")
            #expect(server.savedFiles == [])

            let fits = try await Curl.run(["-F", "f=@\(small)", server.url + "/upload"])
            #expect(fits.status == 200)
            #expect(server.savedFiles == ["small.txt"])
        }
    }

    @Test func resetFirstClosesTheConnectionMidBodyAndRemovesTheFile() async throws {
        let path = writeLargeFile(files.sub("scan.tiff"), mebibytes: 4)
        try await withReceiver({
            $0.resetFirst = 1
            $0.resetAfterBodyBytes = 256 << 10
        }) { server in
            let first = try await Curl.run(["-F", "scan=@\(path)", server.url + "/upload"])
            #expect(first.status == 0)
            // 56: "Recv failure: Connection reset by peer"; 55: send failure; 52: empty reply.
            #expect([52, 55, 56].contains(first.exitCode), "\(first.exitCode) \(first.stderr)")
            #expect(server.savedFiles == [])

            let second = try await Curl.run(["-F", "scan=@\(path)", server.url + "/upload"])
            #expect(second.status == 200)
            #expect(try second.upload().file("scan")?.sha256 == sha256(ofFile: path))
            #expect(server.savedFiles == ["scan.tiff"])
        }
    }

    @Test func resetRightAfterTheHeaders() async throws {
        try await withReceiver({ $0.resetFirst = 2 }) { server in
            let raw = try await Curl.run(["--data-binary", "abc", server.url + "/"])
            #expect(raw.status == 0 && raw.exitCode != 0)
            let get = try await Curl.run([server.url + "/"])
            #expect(get.status == 0 && get.exitCode != 0)
            #expect(try await Curl.run([server.url + "/"]).status == 200)
        }
    }

    @Test func slowReadingAndLatencyStillDeliverEverything() async throws {
        let bytes = pseudoRandomBytes(256 << 10, seed: 7)
        let path = files.file("slow.bin", bytes)
        try await withReceiver({
            $0.readBytesPerSecond = 2 << 20
            $0.latency = .milliseconds(50)
        }) { server in
            let result = try await Curl.run(["-F", "f=@\(path)", server.url + "/"])
            #expect(try result.upload().file("f")?.sha256 == sha256(bytes))
        }
    }

    @Test func everyRequestIsLogged() async throws {
        let path = files.file("log.txt", Array("12345".utf8))
        try await withReceiver { server in
            _ = try await Curl.run([server.url + "/"])
            _ = try await Curl.run(["-F", "a=1", "-F", "f=@\(path)", server.url + "/upload?x=1"])
            // The entry is handed over just after the answer is written; wait for it, not for a time.
            for _ in 0..<500 where server.entries.count < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let entries = server.entries
            try #require(entries.count == 2)
            #expect(entries[0].method == "GET" && entries[0].status == 200 && entries[0].path == "/")
            let upload = entries[1]
            #expect(upload.path == "/upload")
            #expect(upload.files == 1 && upload.fields == 1)
            #expect(upload.remoteAddress?.hasPrefix("127.0.0.1:") == true)
            #expect(upload.line.hasPrefix("POST /upload 200 1 file 1 field "))
            #expect(upload.line.hasSuffix(" ms"))
            #expect(server.receiver.requestCount == 2)
        }
    }

    @Test func stopFreesThePort() async throws {
        let scratch = TemporaryDirectory()
        let receiver = Receiver(configuration: ReceiverConfiguration(directory: scratch.sub("in")))
        try await receiver.start()
        let port = receiver.port
        #expect(port > 0)
        #expect(receiver.baseURL == "http://127.0.0.1:\(port)")
        #expect(try await Curl.run([receiver.baseURL + "/"]).status == 200)
        await receiver.stop()
        let refused = try await Curl.run([receiver.baseURL + "/"])
        #expect(refused.exitCode == 7)  // couldn't connect

        var again = ReceiverConfiguration(directory: scratch.sub("in"))
        again.port = port
        let second = Receiver(configuration: again)
        try await second.start()
        #expect(second.port == port)
        await second.stop()
    }
}
