import Foundation
import NIOCore
import TestSupport
import Testing

@testable import Receiver

/// The streaming multipart handler and the Content-Disposition parser it relies on.
@Suite struct MultipartParsingTests {
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
