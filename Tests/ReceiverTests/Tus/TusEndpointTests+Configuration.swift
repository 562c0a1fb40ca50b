import Foundation
import Receiver
import TestSupport
import Testing

/// The endpoint as the receiver is set up: across a restart, over HTTP/2, with expiration, on
/// another path or none.
extension TusEndpointTests {
    @Test func uploadsSurviveARestart() async throws {
        let bytes = pseudoRandomBytes(10_000, seed: 6)
        let scratch = TemporaryDirectory()
        let configuration = ReceiverConfiguration(directory: scratch.sub("in"))
        let first = Receiver(configuration: configuration)
        try await first.start()
        let location: String
        do {
            let url = first.baseURL
            let created = try await Curl.run(
                TusCurl.version + [
                    "-X", "POST", "-H", "Upload-Length: 10000", "-H",
                    "Upload-Metadata: " + TusCurl.metadata([("filename", "kept.bin")]), url + "/files",
                ])
            location = try #require(created.header("Location"))
            let chunk = scratch.file("chunk", Array(bytes[..<4_000]))
            let patched = try await Curl.run(
                TusCurl.version + TusCurl.chunkType + [
                    "-X", "PATCH", "-H", "Upload-Offset: 0", "--data-binary", "@" + chunk, url + location,
                ])
            #expect(patched.offset == 4_000)
        }
        await first.stop()

        try await withReceiver({ $0.directory = configuration.directory }) { server in
            let tus = TusCurl(server)
            let head = try await tus.head(location)
            #expect(head.status == 200 && head.offset == 4_000)
            #expect(head.header("Upload-Metadata") == TusCurl.metadata([("filename", "kept.bin")]))
            #expect(try await tus.patch(location, offset: 4_000, Array(bytes[4_000...])).offset == 10_000)
            #expect(fileBytes(server.saved("kept.bin")) == bytes)
        }
    }

    @Test func theProtocolWorksOverHTTP2() async throws {
        let pem = TemporaryDirectory()
        let made = try await Subprocess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-keyout", pem.sub("key.pem"), "-out", pem.sub("cert.pem"),
            ], timeout: .seconds(30))
        try #require(made.status == 0)
        let bytes = pseudoRandomBytes(200_000, seed: 7)
        try await withReceiver({ $0.tls = (pem.sub("cert.pem"), pem.sub("key.pem")) }) { server in
            let tus = TusCurl(server)
            let http2 = TusCurl.version + ["-k", "--http2"]
            let created = try await tus.create(
                length: bytes.count, metadata: TusCurl.metadata([("filename", "h2.bin")]),
                body: Array(bytes[..<50_000]),
                headers: ["-k", "--http2"])
            #expect(created.status == 201 && created.offset == 50_000)
            let location = try #require(created.header("Location"))
            #expect(try await tus.head(location, headers: http2).offset == 50_000)
            let patched = try await tus.patch(
                location, offset: 50_000, Array(bytes[50_000...]), headers: http2 + TusCurl.chunkType)
            #expect(patched.status == 204 && patched.offset == 200_000)
            #expect(patched.headerBlock.hasPrefix("HTTP/2 204"))
            #expect(fileBytes(server.saved("h2.bin")) == bytes)
            #expect(try await tus.options().status == 0)  // plain HTTP is not served
        }
    }

    @Test func unfinishedUploadsExpire() async throws {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // Long enough that a loaded machine gets through the requests before it passes.
        try await withReceiver({ $0.tusExpiration = .seconds(8) }) { server in
            let tus = TusCurl(server)
            #expect(try await tus.options().header("Tus-Extension")?.hasSuffix(",concatenation,expiration") == true)
            let created = try await tus.create(length: 10)
            let location = try #require(created.header("Location"))
            let expires = try #require(created.header("Upload-Expires").flatMap(format.date(from:)))
            #expect(expires > Date() && expires < Date() + 9)
            let patched = try await tus.patch(location, offset: 0, Array(repeating: 1, count: 5))
            #expect(patched.header("Upload-Expires").flatMap(format.date(from:)).map { $0 >= expires } == true)
            let head = try await tus.head(location)
            let later = try #require(head.header("Upload-Expires").flatMap(format.date(from:)))

            let done = try await tus.created(length: 0, filename: "done.txt")
            #expect(try await tus.head(done).header("Upload-Expires") == nil)

            // The header has whole seconds: wait until the second after it.
            try await Task.sleep(for: .seconds(later.timeIntervalSinceNow + 1.1))
            #expect(try await tus.head(location).status == 404)
            #expect(try await tus.patch(location, offset: 5, Array(repeating: 1, count: 5)).status == 404)
            #expect(try await tus.head(done).status == 200)
            #expect(listing(server.saved(".tus")).count == 1)  // done's JSON
        }
    }

    @Test func otherPathsAndTheEndpointSwitchedOff() async throws {
        try await withReceiver({ $0.tusPath = nil }) { server in
            let plain = try await Curl.run([
                "-H", "Content-Type: application/octet-stream", "--data-binary", "abc", server.url + "/files",
            ])
            #expect(plain.status == 200)
            #expect(try plain.upload().files.first?.savedAs == "files")
            #expect(server.receiver.tusRequests().isEmpty)
        }
        try await withReceiver({ $0.tusPath = "/tus/" }) { server in
            let created = try await TusCurl(server).create(length: 1, path: "/tus")
            #expect(created.status == 201)
            #expect(created.header("Location")?.hasPrefix("/tus/") == true)
            #expect(try await Curl.run(["--data-binary", "abc", server.url + "/files"]).status == 200)
            #expect(try await Curl.run(["--data-binary", "abc", server.url + "/tusx"]).status == 200)
        }
    }
}
