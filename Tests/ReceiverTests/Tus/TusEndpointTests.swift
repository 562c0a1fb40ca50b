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
}
