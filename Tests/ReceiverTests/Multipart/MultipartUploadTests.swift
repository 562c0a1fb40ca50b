import Foundation
import Receiver
import TestSupport
import Testing

/// multipart/form-data uploads sent by curl, checked against what the receiver answered and saved.
@Suite struct MultipartUploadTests {
    let files = TemporaryDirectory()

    @Test func twoFilesAndAFieldAreSavedWithSizeAndSHA256() async throws {
        let frontBytes = pseudoRandomBytes(150_000, seed: 1)
        let backBytes = pseudoRandomBytes(3_000, seed: 2)
        let front = files.file("身份证 正面.jpg", frontBytes)
        let back = files.file("back.png", backBytes)
        try await withReceiver { server in
            let result = try await Curl.run([
                "-F", "user_id=42", "-F", "front=@\(front)", "-F", "back=@\(back)", server.url + "/upload",
            ])
            #expect(result.status == 200)
            #expect(result.header("Content-Type") == "application/json")
            let upload = try result.upload()
            #expect(upload.method == "POST")
            #expect(upload.path == "/upload")
            #expect(upload.contentType?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(upload.fields == [.init(name: "user_id", value: "42")])
            #expect(upload.json == nil)

            let frontFile = try #require(upload.file("front"))
            #expect(frontFile.filename == "身份证 正面.jpg")
            #expect(frontFile.contentType == "image/jpeg")
            #expect(frontFile.size == 150_000)
            #expect(frontFile.sha256 == sha256(frontBytes))
            #expect(frontFile.savedAs == "身份证 正面.jpg")
            #expect(fileBytes(server.saved(frontFile.savedAs)) == frontBytes)

            let backFile = try #require(upload.file("back"))
            #expect(backFile.filename == "back.png")
            #expect(backFile.contentType == "image/png")
            #expect(backFile.size == 3_000)
            #expect(backFile.sha256 == sha256(backBytes))
            #expect(fileBytes(server.saved(backFile.savedAs)) == backBytes)

            #expect(server.savedFiles == ["back.png", "身份证 正面.jpg"])
            #expect(upload.bodyBytes > 153_000)
        }
    }

    @Test func hostileFilenamesAreSavedInsideTheDirectory() async throws {
        let path = files.file("payload.txt", Array("root:x:0:0".utf8))
        try await withReceiver { server in
            let result = try await Curl.run([
                "-F", "a=@\(path);filename=../../etc/passwd",
                "-F", "b=@\(path);filename=..",
                "-F", "c=@\(path);filename=.bashrc",
                "-F", "d=@\(path);filename=..\\..\\boot.ini",
                server.url + "/upload",
            ])
            #expect(result.status == 200)
            let upload = try result.upload()
            #expect(upload.files.map(\.filename) == ["../../etc/passwd", "..", ".bashrc", "..\\..\\boot.ini"])
            #expect(upload.files.map(\.savedAs) == ["passwd", "upload", "bashrc", "_.._boot.ini"])
            #expect(server.savedFiles == ["_.._boot.ini", "bashrc", "passwd", "upload"])
            // Nothing was written next to the directory.
            #expect(listing(server.scratch.path) == ["saved"])
            #expect(fileBytes(server.saved("passwd")) == Array("root:x:0:0".utf8))
        }
    }

    /// A slash or dot followed by a combining mark is one Swift Character:
    /// the names are cleaned per scalar, and files are created in the
    /// folder itself, never through a link planted in it.
    @Test func combiningMarksAndAPlantedLinkLeadNowhereOutside() async throws {
        let path = files.file("payload.txt", Array("secret".utf8))
        let outside = TemporaryDirectory()
        try await withReceiver { server in
            #expect(symlink(outside.path, server.saved("sub")) == 0)
            #expect(symlink(outside.path + "/taken.txt", server.saved("x.txt")) == 0)
            let long = String(repeating: "长", count: 100) + ".txt"  // 304 bytes
            let result = try await Curl.run([
                "-F", "a=@\(path);filename=sub/\u{0301}x.txt",
                "-F", "b=@\(path);filename=.\u{0301}bashrc",
                "-F", "c=@\(path);filename=sub/\u{0301}../\u{0301}../escape.txt",
                "-F", "d=@\(path);filename=\(long)",
                server.url + "/upload",
            ])
            #expect(result.status == 200, "\(result.body)")
            let saved = try result.upload().files.map(\.savedAs)
            // x.txt is taken by the planted link: the file goes beside it, not through it.
            #expect(saved.prefix(3) == ["x-1.txt", "bashrc", "escape.txt"])
            #expect(saved[3].utf8.count <= 200 && saved[3].hasSuffix("长.txt"))
            #expect(listing(outside.path).isEmpty, "nothing was written through the links")
            #expect(Set(server.savedFiles) == Set(["sub", "x.txt"] + saved))
            for name in saved { #expect(fileBytes(server.saved(name)) == Array("secret".utf8)) }
        }
    }

    /// Each part is a file on disk and each field is held in memory: a form
    /// of too many parts, or of too much text, gets 413 and leaves no file.
    @Test func tooManyPartsOrTooMuchFieldTextIs413() async throws {
        let path = files.file("p.txt", Array("part".utf8))
        try await withReceiver({
            $0.maxParts = 3
            $0.maxTotalFieldBytes = 1000
        }) { server in
            let four = try await Curl.run(
                (1...4).flatMap { ["-F", "f\($0)=@\(path)"] } + [server.url + "/upload"])
            #expect(four.status == 413)
            #expect(four.text.contains("more than 3 parts"))
            let three = try await Curl.run((1...3).flatMap { ["-F", "f\($0)=@\(path)"] } + [server.url + "/upload"])
            #expect(three.status == 200)
            #expect(server.savedFiles.count == 3, "only the accepted form's files")

            let text = String(repeating: "x", count: 600)
            let tooMuch = try await Curl.run(["-F", "a=\(text)", "-F", "b=\(text)", server.url + "/upload"])
            #expect(tooMuch.status == 413)
            #expect(tooMuch.text.contains("text fields are larger than 1000 bytes together"))
            #expect(try await Curl.run(["-F", "a=\(text)", server.url + "/upload"]).status == 200)
        }
    }

    @Test func aTakenNameGetsANumberBeforeTheExtension() async throws {
        let path = files.file("p.bin", [1, 2, 3])
        try await withReceiver { server in
            let result = try await Curl.run([
                "-F", "a=@\(path);filename=photo.jpg", "-F", "b=@\(path);filename=photo.jpg",
                "-F", "c=@\(path);filename=photo.jpg", "-F", "d=@\(path);filename=README",
                "-F", "e=@\(path);filename=README", server.url + "/",
            ])
            let upload = try result.upload()
            #expect(upload.files.map(\.savedAs) == ["photo.jpg", "photo-1.jpg", "photo-2.jpg", "README", "README-1"])
        }
    }

    @Test func concurrentUploadsOfOneNameNeverOverwriteEachOther() async throws {
        let count = 6
        let contents = (0..<count).map { pseudoRandomBytes(40_000 + $0, seed: UInt64(10 + $0)) }
        let paths = contents.enumerated().map { files.file("src\($0.offset).bin", $0.element) }
        try await withReceiver { server in
            let uploads = try await withThrowingTaskGroup(of: ReceivedUpload.self) { group in
                for path in paths {
                    group.addTask {
                        try await Curl.run(["-F", "f=@\(path);filename=photo.jpg", server.url + "/"]).upload()
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let saved = uploads.compactMap(\.files.first)
            #expect(Set(saved.map(\.savedAs)) == Set(["photo.jpg"] + (1..<count).map { "photo-\($0).jpg" }))
            for file in saved {
                #expect(sha256(ofFile: server.saved(file.savedAs)) == file.sha256)
            }
            #expect(Set(saved.map(\.sha256)) == Set(contents.map { sha256($0) }))
        }
    }

    @Test func filenamesWithSemicolonQuoteAndNewlineAreDecoded() async throws {
        let path = files.file("x.txt", Array("hi\n".utf8))
        try await withReceiver { server in
            // curl 7.88 sends these as filename="a;b%22c.txt" and filename="line%0Atwo.txt".
            let result = try await Curl.run([
                "-F", "f=@\(path);filename=\"a;b\\\"c.txt\"",
                "-F", "g=@\(path);filename=\"line\ntwo.txt\"",
                "-F", "h\"q=v",
                server.url + "/",
            ])
            let upload = try result.upload()
            #expect(upload.files.map(\.filename) == ["a;b\"c.txt", "line\ntwo.txt"])
            #expect(upload.files.map(\.savedAs) == ["a;b\"c.txt", "line_two.txt"])
            #expect(upload.fields == [.init(name: "h\"q", value: "v")])
            #expect(fileBytes(server.saved("a;b\"c.txt")) == Array("hi\n".utf8))
        }
    }

    @Test func chunkedMultipartBody() async throws {
        let bytes = pseudoRandomBytes(300_000, seed: 3)
        let path = files.file("scan.pdf", bytes)
        try await withReceiver { server in
            let result = try await Curl.run([
                "-H", "Transfer-Encoding: chunked", "-F", "k=v", "-F", "doc=@\(path)", server.url + "/docs",
            ])
            #expect(result.status == 200)
            let upload = try result.upload()
            #expect(upload.fields == [.init(name: "k", value: "v")])
            #expect(upload.file("doc")?.sha256 == sha256(bytes))
            #expect(upload.file("doc")?.size == 300_000)
        }
    }

    @Test func malformedBodiesGet400AndLeaveNoFiles() async throws {
        let truncated = files.file(
            "truncated.bin",
            Array("--xyz\r\nContent-Disposition: form-data; name=\"f\"; filename=\"t.txt\"\r\n\r\nhello".utf8))
        let badBoundaryLine = files.file(
            "bad.bin",
            Array("--xyz\r\nContent-Disposition: form-data; name=\"f\"; filename=\"t.txt\"\r\n\r\nhi\r\n--xyzQ".utf8))
        try await withReceiver { server in
            let multipart = "Content-Type: multipart/form-data; boundary=xyz"
            let garbage = try await Curl.run(["-H", multipart, "--data-binary", "garbage", server.url + "/"])
            #expect(garbage.status == 400)
            #expect(
                try garbage.json()["error"] as? String
                    == "malformed multipart/form-data body: it ended before the closing boundary \"--xyz--\"")

            let noBoundary = try await Curl.run([
                "-H", "Content-Type: multipart/form-data", "--data-binary", "x", server.url + "/",
            ])
            #expect(noBoundary.status == 400)
            #expect((try noBoundary.json()["error"] as? String)?.contains("without a boundary") == true)

            let cut = try await Curl.run(["-H", multipart, "--data-binary", "@\(truncated)", server.url + "/"])
            #expect(cut.status == 400)
            let bad = try await Curl.run(["-H", multipart, "--data-binary", "@\(badBoundaryLine)", server.url + "/"])
            #expect(bad.status == 400)
            #expect((try bad.json()["error"] as? String)?.contains("cannot be parsed") == true)
            #expect(server.savedFiles == [])
        }
    }

    @Test func a200MBFileIsStreamedToDisk() async throws {
        let path = writeLargeFile(files.sub("big.bin"), mebibytes: 200)
        let expected = try #require(sha256(ofFile: path))
        try await withReceiver { server in
            let result = try await Curl.run(["-F", "note=big", "-F", "big=@\(path)", server.url + "/upload"])
            try #require(result.status == 200, "curl exit \(result.exitCode): \(result.stderr)")
            let file = try #require(try result.upload().file("big"))
            #expect(file.size == 200 << 20)
            #expect(file.sha256 == expected)
            #expect(sha256(ofFile: server.saved(file.savedAs)) == expected)
        }
    }
}
