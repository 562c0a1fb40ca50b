import FormData
import Glibc
import TestSupport
import Testing

/// Bad input is refused before any byte is produced, with a message that
/// names the field and the path.
@Suite struct ErrorTests {
    let dir = TemporaryDirectory()

    @Test func missingFile() {
        let path = dir.path + "/front.jpg"
        let form = MultipartForm(parts: [.text("ok", "1"), .file("image", path: path)])
        #expect(throws: FormDataError.fileNotFound(field: "image", path: path)) { try form.makeBody() }
        let error = FormDataError.fileNotFound(field: "image", path: "./front.jpg")
        #expect(error.description == "file not found: ./front.jpg (field \"image\")")
    }

    @Test func missingParentDirectory() {
        let path = dir.path + "/no/such/dir/a.txt"
        #expect(throws: FormDataError.fileNotFound(field: "f", path: path)) {
            try MultipartForm(parts: [.file("f", path: path)]).makeBody()
        }
    }

    @Test func directory() {
        let path = dir.directory("photos")
        #expect(throws: FormDataError.isDirectory(field: "album", path: path)) {
            try MultipartForm(parts: [.file("album", path: path)]).makeBody()
        }
        #expect(throws: FormDataError.isDirectory(field: "album", path: path)) {
            try MultipartForm(parts: [.stream("album", from: .path(path))]).makeBody()
        }
        #expect(
            FormDataError.isDirectory(field: "album", path: "photos").description
                == "is a directory, not a file: photos (field \"album\")")
    }

    @Test func permissionDenied() throws {
        let path = dir.file("secret.key", Array("k".utf8), mode: 0o000)
        let form = MultipartForm(parts: [.file("key", path: path)])
        asUnprivilegedUser {
            #expect(throws: FormDataError.permissionDenied(field: "key", path: path)) { try form.makeBody() }
        }
        let text = MultipartForm(parts: [.fileAsText("key", path: path)])
        asUnprivilegedUser {
            #expect(throws: FormDataError.permissionDenied(field: "key", path: path)) { try text.makeBody() }
        }
        #expect(
            FormDataError.permissionDenied(field: "key", path: "k").description.hasPrefix(
                "permission denied: k (field \"key\")"))
    }

    @Test func fifoIsRefusedAsAFileButAllowedAsAStream() throws {
        let path = dir.path + "/pipe"
        #expect(mkfifo(path, 0o644) == 0)
        #expect(throws: FormDataError.notRegularFile(field: "log", path: path, kind: "a FIFO")) {
            try MultipartForm(parts: [.file("log", path: path)]).makeBody()
        }
        let body = try MultipartForm(parts: [.stream("log", from: .path(path), filename: "log.txt")]).makeBody()
        #expect(body.contentLength == nil)
        #expect(
            FormDataError.notRegularFile(field: "log", path: "p", kind: "a FIFO").description
                == "not a regular file: p is a FIFO (field \"log\"); send it as a stream of unknown length instead")
    }

    @Test func characterDeviceIsNotARegularFile() {
        #expect(throws: FormDataError.notRegularFile(field: "z", path: "/dev/zero", kind: "a character device")) {
            try MultipartForm(parts: [.file("z", path: "/dev/zero")]).makeBody()
        }
    }

    @Test(arguments: [
        ("", "it is empty"),
        (String(repeating: "a", count: 71), "it has 71 characters; RFC 2046 allows at most 70"),
        ("semi;colon", "\";\" is not allowed by RFC 2046"),
        ("quote\"", "\"\\\"\" is not allowed by RFC 2046"),
        ("line\r\nbreak", "\"\\r\" is not allowed by RFC 2046"),
        ("ünï", "a non-ASCII character is not allowed by RFC 2046"),
        ("space at end ", "it ends with a space"),
    ])
    func invalidBoundary(_ value: String, _ reason: String) {
        #expect(throws: FormDataError.invalidBoundary(boundary: value, reason: reason)) { try Boundary(value) }
    }

    @Test func validBoundaryEdges() throws {
        #expect(try Boundary("a").value == "a")
        #expect(try Boundary(String(repeating: "z", count: 70)).value.count == 70)
        #expect(try Boundary("'()+_,-./:=? x").value == "'()+_,-./:=? x")
    }

    @Test func lineBreaksInHeadersAreErrorsNotInjections() {
        let cases: [(Part, String)] = [
            (.text("a", "v", headers: [HeaderField("X-Evil", "1\r\nContent-Type: text/html")]), "X-Evil"),
            (.text("a", "v", headers: [HeaderField("X-Evil", "1\nInjected: yes")]), "X-Evil"),
            (.text("a", "v", headers: [HeaderField("X-Evil\r\nInjected", "1")]), "X-Evil\r\nInjected"),
            (.data("a", [1], filename: "a.bin", contentType: "image/png\r\nX-Injected: 1"), "Content-Type"),
        ]
        for (part, header) in cases {
            #expect(throws: FormDataError.lineBreakInHeader(field: "a", header: header)) {
                try MultipartForm(parts: [part]).makeBody()
            }
        }
    }

    @Test func badHeaderNamesAndReservedHeaders() {
        #expect(throws: FormDataError.invalidHeaderName(field: "a", header: "Bad Name")) {
            try MultipartForm(parts: [.text("a", "v", headers: [HeaderField("Bad Name", "1")])]).makeBody()
        }
        #expect(throws: FormDataError.invalidHeaderName(field: "a", header: "")) {
            try MultipartForm(parts: [.text("a", "v", headers: [HeaderField("", "1")])]).makeBody()
        }
        #expect(throws: FormDataError.reservedHeader(field: "a", header: "content-disposition")) {
            try MultipartForm(parts: [.text("a", "v", headers: [HeaderField("content-disposition", "x")])]).makeBody()
        }
    }

    @Test func hostileNameInAMessageCannotBreakTheLine() {
        let message = FormDataError.fileNotFound(field: "a\r\nb\u{1b}[2J", path: "p").description
        #expect(!message.contains("\r") && !message.contains("\n") && !message.contains("\u{1b}"))
    }

    @Test func inMemoryLimit() throws {
        let body = try MultipartForm(parts: [.data("f", [UInt8](repeating: 7, count: 2000), filename: "a.bin")])
            .makeBody()
        #expect(throws: FormDataError.tooLargeForMemory(limit: 1000)) { try body.data(limit: 1000) }
        #expect(try body.data(limit: 4000).count == Int(body.contentLength!))
    }

    @Test func writingToAMissingDirectoryFailsClearly() throws {
        let body = try MultipartForm(parts: [.text("a", "b")]).makeBody()
        let path = dir.path + "/missing/out.bin"
        #expect(throws: FormDataError.writeFailed(path: path, reason: "No such file or directory")) {
            try body.write(toFile: path)
        }
    }
}
