import Foundation
import TestSupport
import NIOCore
import Testing

@testable import Receiver

/// The pure parts: header parsing, name sanitising, percent-decoding, knobs, the streaming multipart handler.
@Suite struct ParsingTests {
    @Test(
        arguments: [
            (#"form-data; name="user""#, "user", nil),
            (#"form-data; name="f"; filename="a;b%22c.txt""#, "f", #"a;b"c.txt"#),
            (#"form-data; name="f"; filename="line%0D%0Atwo%0a.txt""#, "f", "line\r\ntwo\n.txt"),
            (#"form-data; name="f"; filename="100%25 %41.txt""#, "f", "100%25 %41.txt"),
            (#"form-data;name=bare;filename=x.txt"#, "bare", "x.txt"),
            (#"FORM-DATA ; NAME = "n" ; FILENAME = "身份证 正面.jpg""#, "n", "身份证 正面.jpg"),
            (#"form-data; name="f"; filename="plain.txt"; filename*=UTF-8''%E8%BA%AB%E4%BB%BD.txt"#, "f", "身份.txt"),
            (#"form-data; name="f"; filename*=iso-8859-1'en'caf%E9.txt"#, "f", "café.txt"),
            (#"form-data; name="a\"; filename="b.txt""#, #"a\"#, "b.txt"),
            (#"form-data; name="f"; filename="""#, "f", ""),
        ] as [(String, String?, String?)])
    func contentDisposition(header: String, name: String?, filename: String?) {
        let parsed = ContentDisposition(parsing: header)
        #expect(parsed.type == "form-data")
        #expect(parsed.name == name)
        #expect(parsed.filename == filename)
    }

    @Test func contentTypeParameters() {
        let quoted = MediaType(parsing: #"Multipart/Form-Data; charset=utf-8; boundary="a\"b; c""#)
        #expect(quoted.isMultipartFormData)
        #expect(quoted.parameters["BOUNDARY"] == #"a"b; c"#)
        #expect(quoted.parameters["charset"] == "utf-8")
        #expect(MediaType(parsing: "application/problem+json").isJSON)
        #expect(!MediaType(parsing: "text/json-ish").isJSON)
        #expect(MediaType(parsing: "application/x-www-form-urlencoded; charset=UTF-8").isURLEncodedForm)
    }

    @Test(arguments: [
        ("photo.jpg", "photo.jpg"),
        ("../../etc/passwd", "passwd"),
        ("/abs/path/a.txt", "a.txt"),
        ("dir/", "upload"),
        ("..", "upload"),
        ("...", "upload"),
        (".env", "env"),
        ("  spaced name .txt  ", "spaced name .txt"),
        ("a\u{0}b\nc\u{7F}.txt", "a_b_c_.txt"),
        ("C:\\Users\\me\\x.png", "C:_Users_me_x.png"),
        ("", "upload"),
        ("身份证 正面.jpg", "身份证 正面.jpg"),
    ])
    func sanitizedNames(input: String, expected: String) {
        #expect(FileNameSanitizer.sanitize(input) == expected)
    }

    @Test func longNamesAreCutKeepingTheExtension() {
        let long = String(repeating: "证", count: 100) + ".jpeg"  // 305 bytes
        let cut = FileNameSanitizer.sanitize(long)
        #expect(cut.utf8.count <= FileNameSanitizer.maxBytes)
        #expect(cut.hasSuffix("证.jpeg"))
        #expect(FileNameSanitizer.numbered(cut, 12).utf8.count < 255)
        #expect(FileNameSanitizer.sanitize(nil) == "upload")
        #expect(FileNameSanitizer.numbered("archive.tar.gz", 2) == "archive.tar-2.gz")
    }

    @Test func percentDecoding() {
        #expect(PercentDecoding.decodeString("a%20b+c", plusAsSpace: true) == "a b c")
        #expect(PercentDecoding.decodeString("a%20b+c", plusAsSpace: false) == "a b+c")
        #expect(PercentDecoding.decodeString("100%", plusAsSpace: false) == "100%")
        #expect(PercentDecoding.decodeString("%E8%BA%AB", plusAsSpace: false) == "身")
        let pairs = PercentDecoding.pairs("a=1&&b=&c&d=x%3Dy", plusAsSpace: true)
        #expect(pairs.map(\.name) == ["a", "b", "c", "d"])
        #expect(pairs.map(\.value) == ["1", "", "", "x=y"])
    }

    @Test func queryKnobs() throws {
        let knobs = try RequestKnobs(
            query: "status=201&reply=text&early=1&delay=5&stall=7&json=%7B%22a%22%3A1e%2B5%7D&other=x")
        #expect(knobs.status == 201)
        #expect(knobs.reply == .text)
        #expect(knobs.early)
        #expect(knobs.delay == .milliseconds(5))
        #expect(knobs.stall == .milliseconds(7))
        #expect(knobs.json == #"{"a":1e+5}"#)
        #expect(throws: ReceiverError.badRequest("?status=99 is not a status code from 200 to 599")) {
            try RequestKnobs(query: "status=99")
        }
        #expect(throws: ReceiverError.self) { try RequestKnobs(query: "reply=xml") }
        #expect(try RequestKnobs(query: "early=0").early == false)
    }

    @Test func logLine() {
        let entry = ReceiverLogEntry(
            method: "POST", path: "/upload", status: 200, bodyBytes: 20_787, files: 2, fields: 1,
            duration: .milliseconds(12), remoteAddress: "127.0.0.1:5000")
        #expect(entry.line == "POST /upload 200 2 files 1 field 20.3 KB 12 ms")
        let reset = ReceiverLogEntry(
            method: "PUT", path: "/x", status: 0, bodyBytes: 512, files: 0, fields: 0,
            duration: .microseconds(300), remoteAddress: nil)
        #expect(reset.line == "PUT /x reset 512 B 0 ms")
        #expect(ReceiverLogEntry.formatBytes(200 << 20) == "200.0 MB")
    }

    @Test func receivedJSONRoundTrips() throws {
        let text = #"{"a":[1,-2.5,"x",true,false,null,{}],"b":{"c":"d"}}"#
        let value = try JSONDecoder().decode(ReceivedJSON.self, from: Data(text.utf8))
        #expect(value["a"]?[1] == .number(-2.5))
        #expect(value["a"]?[3] == .bool(true))
        #expect(value["a"]?[5] == .null)
        let again = try JSONDecoder().decode(ReceivedJSON.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }

    /// The handler must give the same result however the body is cut into chunks, including cuts
    /// inside delimiters and inside data that nearly looks like a delimiter.
    @Test(arguments: [1, 2, 3, 5, 7, 13, 64, 1000, 1 << 20])
    func multipartHandlerIgnoresChunkBoundaries(chunkSize: Int) throws {
        let boundary = "hoist-7d1f"
        let tricky = Array("\r\n--hoist-7d\r\r\n-\r\n--hoist\r\n--hoist-7d1\r".utf8)
        let fileData = pseudoRandomBytes(5000, seed: 9) + tricky + pseudoRandomBytes(3000, seed: 10) + tricky
        var body: [UInt8] = []
        func add(_ text: String) { body += Array(text.utf8) }
        add("preamble\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n")
        add("line one\r\nline two")
        add("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n")
        add("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a;b.bin\"\r\n")
        add("Content-Type: application/octet-stream\r\n\r\n")
        body += fileData
        add("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"crlf\"\r\n\r\n\r\n")
        add("\r\n--\(boundary)--\r\nepilogue \r\n--\(boundary)\r\n")

        let directory = TemporaryDirectory()
        let handler = MultipartStreamHandler(boundary: boundary, directory: UploadDirectory(path: directory.path))
        var offset = 0
        while offset < body.count {
            let end = min(offset + chunkSize, body.count)
            try handler.feed(ByteBuffer(bytes: body[offset..<end]))
            offset = end
        }
        try handler.finish()
        #expect(
            handler.fields == [
                .init(name: "note", value: "line one\r\nline two"), .init(name: "empty", value: ""),
                .init(name: "crlf", value: "\r\n"),
            ])
        #expect(handler.files.count == 1)
        #expect(handler.files.first?.filename == "a;b.bin")
        #expect(handler.files.first?.contentType == "application/octet-stream")
        #expect(handler.files.first?.size == Int64(fileData.count))
        #expect(handler.files.first?.sha256 == sha256(fileData))
        #expect(fileBytes(directory.path + "/a;b.bin") == fileData)
    }

    @Test func multipartHandlerAbortRemovesFiles() throws {
        let directory = TemporaryDirectory()
        let handler = MultipartStreamHandler(boundary: "b", directory: UploadDirectory(path: directory.path))
        try handler.feed(
            ByteBuffer(
                string: "--b\r\nContent-Disposition: form-data; name=\"x\"; filename=\"done.txt\"\r\n\r\nok\r\n"
                    + "--b\r\nContent-Disposition: form-data; name=\"y\"; filename=\"half.txt\"\r\n\r\nhal"))
        #expect(listing(directory.path) == ["done.txt", "half.txt"])
        #expect(throws: ReceiverError.self) { try handler.finish() }
        handler.abort()
        #expect(listing(directory.path) == [])
    }

    @Test func oversizedFieldIsRefused() throws {
        let directory = TemporaryDirectory()
        let handler = MultipartStreamHandler(boundary: "b", directory: UploadDirectory(path: directory.path))
        try handler.feed(ByteBuffer(string: "--b\r\nContent-Disposition: form-data; name=\"big\"\r\n\r\n"))
        let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: 1 << 20)
        #expect(throws: ReceiverError.self) {
            for _ in 0...MultipartStreamHandler.maxFieldBytes >> 20 { try handler.feed(chunk) }
        }
    }
}
