import FormData
import TestSupport
import Testing

/// Byte-exact bodies, written out by hand from the rules in DESIGN.md.
@Suite struct GoldenBodyTests {
    let boundary = try! Boundary("XyZ")

    @Test func singleTextField() throws {
        let form = MultipartForm(boundary: boundary, parts: [.text("greeting", "hello")])
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"greeting\"\r\n"
            + "\r\n"
            + "hello\r\n"
            + "--XyZ--\r\n"
        let body = try form.makeBody()
        #expect(try body.bytes() == Array(expected.utf8))
        #expect(body.contentLength == Int64(expected.utf8.count))
        #expect(body.contentType == "multipart/form-data; boundary=XyZ")
    }

    @Test func fileWithCJKNameTypeAndExtraHeadersInOrder() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("身份证正面.jpg", text: "JPEG")
        let form = MultipartForm(
            boundary: boundary,
            parts: [
                .text("user", "42"),
                .file("front", path: path, headers: [HeaderField("X-Trace", "1"), HeaderField("X-Side", "front")]),
            ])
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"user\"\r\n"
            + "\r\n"
            + "42\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"front\"; filename=\"身份证正面.jpg\"\r\n"
            + "Content-Type: image/jpeg\r\n"
            + "X-Trace: 1\r\n"
            + "X-Side: front\r\n"
            + "\r\n"
            + "JPEG\r\n"
            + "--XyZ--\r\n"
        let body = try form.makeBody()
        #expect(try body.bytes() == Array(expected.utf8))
        #expect(body.contentLength == Int64(expected.utf8.count))
    }

    @Test func namesAndFilenamesAreWHATWGEscaped() throws {
        let form = MultipartForm(
            boundary: boundary,
            parts: [
                .data("a\"b\r\nc", [0x41], filename: "x\"y\nz;.txt")
            ])
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"a%22b%0D%0Ac\"; filename=\"x%22y%0Az;.txt\"\r\n"
            + "Content-Type: text/plain\r\n"
            + "\r\n"
            + "A\r\n"
            + "--XyZ--\r\n"
        #expect(try form.makeBody().bytes() == Array(expected.utf8))
    }

    @Test func fileAsTextHasNoFilenameAndNoType() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("note.json", text: "{\"a\":1}")
        let form = MultipartForm(boundary: boundary, parts: [.fileAsText("meta", path: path)])
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"meta\"\r\n"
            + "\r\n"
            + "{\"a\":1}\r\n"
            + "--XyZ--\r\n"
        #expect(try form.makeBody().bytes() == Array(expected.utf8))
    }

    @Test func explicitTypeAndFilenameOverrideTheDefaults() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("scan.bin", text: "%PDF")
        let form = MultipartForm(
            boundary: boundary,
            parts: [
                .file("doc", path: path, filename: "report.pdf"),
                .file("raw", path: path, contentType: "application/x-scan"),
                .file("hdr", path: path, headers: [HeaderField("content-type", "image/x-custom")]),
            ])
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"doc\"; filename=\"report.pdf\"\r\n"
            + "Content-Type: application/pdf\r\n\r\n%PDF\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"raw\"; filename=\"scan.bin\"\r\n"
            + "Content-Type: application/x-scan\r\n\r\n%PDF\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"hdr\"; filename=\"scan.bin\"\r\n"
            + "Content-Type: image/x-custom\r\n\r\n%PDF\r\n"
            + "--XyZ--\r\n"
        #expect(try form.makeBody().bytes() == Array(expected.utf8))
    }

    @Test func unknownExtensionIsOctetStreamAndFilenameIsTheBaseName() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("blob.zzzunknown", [0, 1])
        let form = MultipartForm(boundary: boundary, parts: [.file("f", path: path)])
        let expected =
            Array(
                "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"blob.zzzunknown\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8)
            + [0, 1] + Array("\r\n--XyZ--\r\n".utf8)
        #expect(try form.makeBody().bytes() == expected)
    }

    @Test func emptyFormIsTheCloseDelimiterOnly() throws {
        let body = try MultipartForm(boundary: boundary).makeBody()
        #expect(try body.bytes() == Array("--XyZ--\r\n".utf8))
        #expect(body.contentLength == 9)
    }

    @Test func boundaryWithSpecialCharactersIsQuotedInContentType() throws {
        let form = MultipartForm(boundary: try Boundary("a b:c=d"))
        #expect(form.contentType == "multipart/form-data; boundary=\"a b:c=d\"")
        #expect(try form.makeBody().bytes() == Array("--a b:c=d--\r\n".utf8))
    }

    @Test func randomBoundaryIs128BitsOfHex() {
        let first = Boundary.random().value
        let second = Boundary.random().value
        #expect(first != second)
        #expect(first.hasPrefix("hoist-"))
        let hex = first.dropFirst("hoist-".count)
        #expect(hex.count == 32)
        #expect(hex.allSatisfy { $0.isHexDigit })
        #expect((try? Boundary(first)) != nil)
    }

    /// Boundaries come from a pool of the kernel's random words, refilled
    /// every 16 boundaries and shared by threads: none may repeat, and
    /// their digits spread evenly.
    @Test func boundariesMadeOnManyThreadsNeverRepeat() async {
        let batches = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<2_500).map { _ in Boundary.random().value } } }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(batches).count == 10_000)
        var counts: [Character: Int] = [:]
        for boundary in batches { for digit in boundary.dropFirst("hoist-".count) { counts[digit, default: 0] += 1 } }
        // 320,000 digits: 20,000 of each expected; a fair source stays within 3.5% (5 standard deviations).
        #expect(counts.count == 16)
        #expect(counts.values.allSatisfy { abs($0 - 20_000) < 700 })
    }

    @Test func duplicateNamesAreKeptInOrder() throws {
        let form = MultipartForm(
            boundary: boundary,
            parts: [
                .data("userfile[]", Array("one".utf8), filename: "1.txt"),
                .data("userfile[]", Array("two".utf8), filename: "2.txt"),
            ])
        let parts = try parseMultipart(try form.makeBody().bytes(), boundary: "XyZ")
        #expect(parts.map(\.name) == ["userfile[]", "userfile[]"])
        #expect(parts.map(\.text) == ["one", "two"])
    }
}
