import Foundation
import Receiver
import TestSupport
import Testing

/// The tus 1.0 endpoint driven by curl: the core protocol, creation, termination and their error answers.
@Suite struct TusEndpointTests {
    @Test func optionsAdvertisesVersionExtensionsAndLimits() async throws {
        try await withReceiver({ $0.maxBodySize = 5_000_000 }) { server in
            let tus = TusCurl(server)
            for path in ["/files", "/files/", "/files/0123456789abcdef0123456789abcdef"] {
                let options = try await tus.options(path)
                #expect(options.status == 204, "\(path)")
                #expect(options.header("Tus-Resumable") == "1.0.0")
                #expect(options.header("Tus-Version") == "1.0.0")
                #expect(
                    options.header("Tus-Extension")
                        == "creation,creation-with-upload,creation-defer-length,termination,checksum,concatenation")
                #expect(options.header("Tus-Checksum-Algorithm") == "sha1,sha256,sha384,sha512,md5")
                #expect(options.header("Tus-Max-Size") == "5000000")
                #expect(options.header("Content-Length") == nil)
                #expect(options.body.isEmpty)
            }
        }
        try await withReceiver { server async throws in
            #expect(try await TusCurl(server).options().header("Tus-Max-Size") == nil)
        }
    }

    @Test func createHeadAndThreePatchesSaveTheFile() async throws {
        let bytes = pseudoRandomBytes(300_000, seed: 11)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let metadata = TusCurl.metadata([("filename", "scan.pdf"), ("filetype", "application/pdf"), ("flag", nil)])
            let created = try await tus.create(length: bytes.count, metadata: metadata)
            #expect(created.status == 201)
            #expect(created.header("Tus-Resumable") == "1.0.0")
            #expect(created.header("Upload-Offset") == nil)
            let location = try #require(created.header("Location"))
            #expect(location.wholeMatch(of: /\/files\/[0-9a-f]{32}/) != nil, "relative: \(location)")

            let head = try await tus.head(location)
            #expect(head.status == 200)
            #expect(head.offset == 0)
            #expect(head.header("Upload-Length") == "300000")
            #expect(head.header("Upload-Metadata") == metadata)
            #expect(head.header("Cache-Control") == "no-store")
            #expect(head.header("Tus-Resumable") == "1.0.0")

            var offset = 0
            for size in [100_000, 150_000, 50_000] {
                let patch = try await tus.patch(location, offset: offset, Array(bytes[offset..<offset + size]))
                #expect(patch.status == 204, "\(patch.text)")
                #expect(patch.header("Tus-Resumable") == "1.0.0")
                #expect(patch.header("Content-Length") == nil)
                offset += size
                #expect(patch.offset == offset)
                if offset < bytes.count { #expect(server.savedFiles == [".tus"]) }
            }
            #expect(fileBytes(server.saved("scan.pdf")) == bytes)
            #expect(sha256(ofFile: server.saved("scan.pdf")) == sha256(bytes))

            let done = try await tus.head(location)
            #expect(done.status == 200 && done.offset == 300_000)
            // Only the upload's JSON is left in the hidden folder.
            let id = String(location.dropFirst("/files/".count))
            #expect(listing(server.saved(".tus")) == [id + ".json"])

            try await eventually { server.entries.count >= 5 }
            let last = try #require(server.entries.last { $0.method == "PATCH" })
            #expect(last.files == 1 && last.status == 204)
            #expect(last.line.hasPrefix("PATCH \(location) 204 1 file "))
            #expect(server.entries.filter { $0.files == 1 }.count == 1)

            let records = server.receiver.tusRequests()
            #expect(records.map(\.method) == ["POST", "HEAD", "PATCH", "PATCH", "PATCH", "HEAD"])
            #expect(records.map(\.status) == [201, 200, 204, 204, 204, 200])
            #expect(records.allSatisfy { $0.uploadID == id })
            #expect(records.compactMap(\.uploadOffset) == [0, 100_000, 250_000])
            #expect(records.filter { $0.method == "PATCH" }.map(\.bodyBytes) == [100_000, 150_000, 50_000])
            #expect(records.compactMap(\.savedAs) == ["scan.pdf"])
            #expect(records.compactMap(\.keptRange) == [0..<100_000, 100_000..<250_000, 250_000..<300_000])
        }
    }

    @Test func trailingSlashAndCreationWithUpload() async throws {
        let bytes = pseudoRandomBytes(5_000, seed: 3)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let whole = try await tus.create(
                length: bytes.count, metadata: TusCurl.metadata([("filename", "one.bin")]), body: bytes,
                path: "/files/")
            #expect(whole.status == 201)
            #expect(whole.offset == 5_000)
            #expect(whole.header("Location")?.hasPrefix("/files/") == true)
            #expect(fileBytes(server.saved("one.bin")) == bytes)

            let half = try await tus.create(
                length: bytes.count, metadata: TusCurl.metadata([("filename", "two.bin")]),
                body: Array(bytes[..<2_000]))
            #expect(half.status == 201 && half.offset == 2_000)
            let location = try #require(half.header("Location"))
            #expect(try await tus.patch(location, offset: 2_000, Array(bytes[2_000...])).offset == 5_000)
            #expect(fileBytes(server.saved("two.bin")) == bytes)

            let wrongType = try await tus.create(
                length: 10, body: Array(bytes[..<10]), bodyType: "application/octet-stream")
            #expect(wrongType.status == 415)
        }
    }

    @Test func emptyUploadIsSavedAtCreation() async throws {
        try await withReceiver { server in
            let created = try await TusCurl(server).create(
                length: 0, metadata: TusCurl.metadata([("filename", "empty.txt")]))
            #expect(created.status == 201)
            #expect(fileBytes(server.saved("empty.txt")) == [])
            #expect(server.receiver.tusRequests().first?.savedAs == "empty.txt")
        }
    }

    @Test func wrongOffsetGets409WithTheCurrentOffset() async throws {
        let bytes = pseudoRandomBytes(1_000, seed: 4)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 1_000, filename: "a.bin")
            #expect(try await tus.patch(location, offset: 0, Array(bytes[..<400])).offset == 400)
            for wrong in [0, 300, 500] {
                let conflict = try await tus.patch(location, offset: wrong, Array(bytes[wrong..<wrong + 100]))
                #expect(conflict.status == 409)
                #expect(conflict.offset == 400)
                #expect((try conflict.json()["error"] as? String)?.contains("resume from Upload-Offset 400") == true)
            }
            #expect(try await tus.head(location).offset == 400)
            #expect(try await tus.patch(location, offset: 400, Array(bytes[400...])).status == 204)
            #expect(fileBytes(server.saved("a.bin")) == bytes)
        }
    }

    @Test func patchWithoutTheChunkContentTypeGets415() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 10)
            for type in [["-H", "Content-Type: application/octet-stream"], []] {
                let refused = try await tus.patch(
                    location, offset: 0, Array(repeating: 7, count: 10), headers: TusCurl.version + type)
                #expect(refused.status == 415)
                #expect(refused.header("Tus-Resumable") == "1.0.0")
            }
            #expect(try await tus.head(location).offset == 0)
        }
    }

    @Test func requestsWithoutTusResumableGet412() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 10)
            let results = [
                try await Curl.run(["-X", "POST", "-H", "Upload-Length: 10", server.url + "/files"]),
                try await tus.head(location, headers: []),
                try await tus.patch(location, offset: 0, [1, 2, 3], headers: TusCurl.chunkType),
                try await tus.patch(
                    location, offset: 0, [1, 2, 3], headers: ["-H", "Tus-Resumable: 0.2.2"] + TusCurl.chunkType),
                try await Curl.run(["-X", "DELETE", server.url + location]),
            ]
            for result in results {
                #expect(result.status == 412)
                #expect(result.header("Tus-Version") == "1.0.0")
            }
            #expect(try await tus.head(location).offset == 0)
            #expect(server.receiver.tusRequests().filter { $0.status == 412 }.count == 5)
        }
    }

    @Test func deleteTerminatesTheUpload() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 100, filename: "gone.bin")
            #expect(try await tus.patch(location, offset: 0, Array(repeating: 1, count: 40)).offset == 40)
            let deleted = try await tus.delete(location)
            #expect(deleted.status == 204)
            #expect(try await tus.head(location).status == 404)
            #expect(try await tus.patch(location, offset: 40, Array(repeating: 1, count: 60)).status == 404)
            #expect(try await tus.delete(location).status == 404)
            #expect(listing(server.saved(".tus")) == [])
            #expect(server.savedFiles == [".tus"])
        }
    }

    @Test func deferredLengthIsSetByALaterPatch() async throws {
        let bytes = pseudoRandomBytes(3_000, seed: 5)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: nil, filename: "stdin.txt")
            let head = try await tus.head(location)
            #expect(head.header("Upload-Defer-Length") == "1")
            #expect(head.header("Upload-Length") == nil)
            #expect(try await tus.patch(location, offset: 0, Array(bytes[..<1_000])).offset == 1_000)
            #expect(try await tus.head(location).header("Upload-Defer-Length") == "1")
            #expect(server.savedFiles == [".tus"])

            let last = try await tus.patch(
                location, offset: 1_000, Array(bytes[1_000...]),
                headers: TusCurl.version + TusCurl.chunkType + ["-H", "Upload-Length: 3000"])
            #expect(last.status == 204 && last.offset == 3_000)
            #expect(fileBytes(server.saved("stdin.txt")) == bytes)
            let done = try await tus.head(location)
            #expect(done.header("Upload-Length") == "3000" && done.header("Upload-Defer-Length") == nil)
        }
    }

    @Test func lengthSetOnAnEarlierPatchAndAConflictingLength() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: nil, filename: "x.bin")
            let first = try await tus.patch(
                location, offset: 0, Array(repeating: 1, count: 10),
                headers: TusCurl.version + TusCurl.chunkType + ["-H", "Upload-Length: 20"])
            #expect(first.offset == 10)
            #expect(try await tus.head(location).header("Upload-Length") == "20")
            let conflicting = try await tus.patch(
                location, offset: 10, Array(repeating: 1, count: 10),
                headers: TusCurl.version + TusCurl.chunkType + ["-H", "Upload-Length: 25"])
            #expect(conflicting.status == 400)
            let past = try await tus.patch(location, offset: 10, Array(repeating: 1, count: 11))
            #expect(past.status == 413)
            #expect(try await tus.patch(location, offset: 10, Array(repeating: 1, count: 10)).status == 204)
            #expect(fileBytes(server.saved("x.bin")) == Array(repeating: 1, count: 20))
        }
    }

    @Test func hostileFilenamesAreSanitised() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            for name in ["../../etc/passwd", "身份证 正面.jpg", "身份证 正面.jpg", "..", "a\u{1B}[31mb.txt"] {
                let created = try await tus.create(
                    length: 3, metadata: TusCurl.metadata([("filename", name)]), body: Array("abc".utf8))
                #expect(created.status == 201, "\(name)")
            }
            #expect(
                server.savedFiles.sorted() == [".tus", "a_[31mb.txt", "passwd", "upload", "身份证 正面-1.jpg", "身份证 正面.jpg"])
            #expect(fileBytes(server.directory + "/../../etc/passwd") != Array("abc".utf8))
            #expect(
                server.receiver.tusRequests().compactMap(\.savedAs)
                    == ["passwd", "身份证 正面.jpg", "身份证 正面-1.jpg", "upload", "a_[31mb.txt"])
        }
    }

    @Test func unknownUploadsGet404() async throws {
        try await withReceiver { server async throws in
            let tus = TusCurl(server)
            for location in [
                "/files/0123456789abcdef0123456789abcdef", "/files/nope", "/files/a/b", "/files/..%2F..%2Fx",
            ] {
                #expect(try await tus.head(location).status == 404, "\(location)")
                #expect(try await tus.patch(location, offset: 0, [1]).status == 404, "\(location)")
                #expect(try await tus.delete(location).status == 404, "\(location)")
            }
            #expect(try await Curl.run(["-X", "GET", server.url + "/files"]).status == 405)
        }
    }

    @Test func uploadLengthOverTheLimitGets413() async throws {
        try await withReceiver({ $0.maxBodySize = 1_000 }) { server in
            let tus = TusCurl(server)
            let refused = try await tus.create(length: 1_001)
            #expect(refused.status == 413)
            #expect(refused.header("Location") == nil)
            #expect(try await tus.create(length: 1_000).status == 201)

            // A deferred upload may not grow past it either.
            let location = try await tus.created(length: nil)
            #expect(try await tus.patch(location, offset: 0, Array(repeating: 0, count: 1_001)).status == 413)
            #expect(try await tus.head(location).offset == 0)
        }
    }

    @Test func malformedHeadersGet400() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            #expect(try await Curl.run(TusCurl.version + ["-X", "POST", server.url + "/files"]).status == 400)
            #expect(try await tus.create(length: 10, headers: ["-H", "Upload-Defer-Length: 1"]).status == 400)
            #expect(try await tus.create(length: nil, headers: ["-H", "Upload-Defer-Length: 2"]).status == 400)
            #expect(try await tus.create(length: 10, metadata: "filename not-base64!").status == 400)
            #expect(try await tus.create(length: 10, metadata: "a YQ==,a YQ==").status == 400)
            let negative = try await Curl.run(
                TusCurl.version + ["-X", "POST", "-H", "Upload-Length: -1", server.url + "/files"])
            #expect(negative.status == 400)
            let location = try await tus.created(length: 10)
            let noOffset = try await Curl.run(
                TusCurl.version + TusCurl.chunkType + ["-X", "PATCH", "--data-binary", "x", server.url + location])
            #expect(noOffset.status == 400)
            #expect(server.savedFiles == [".tus"])
        }
    }

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
