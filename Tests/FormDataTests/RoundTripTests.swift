import FormData
import TestSupport
import Testing

/// Bodies parsed back by an independent parser (multipart-kit).
@Suite struct RoundTripTests {
    static let hostileNames = [
        "plain",
        "quote\"inside",
        "\"",
        "carriage\rreturn",
        "line\nfeed",
        "crlf\r\nContent-Type: text/evil",
        "semi;colon; filename=\"evil.sh\"",
        "back\\slash",
        "trailing\\",
        "身份证正面.jpg",
        "身份证 正面.jpg",
        "emoji 🚀📦.png",
        "tab\tand space",
        "=equals=",
        "",
    ]

    @Test(arguments: hostileNames)
    func hostileNameAndFilenameSurvive(_ name: String) throws {
        let form = MultipartForm(parts: [
            .text(name, "v"),
            .data("f", [1, 2, 3], filename: name),
        ])
        let body = try form.makeBody()
        let parts = try parseMultipart(try body.bytes(), boundary: form.boundary.value)
        #expect(parts.count == 2)
        #expect(parts[0].name == name)
        #expect(parts[0].disposition?.parameters.keys.sorted() == ["name"])
        #expect(parts[0].text == "v")
        #expect(parts[1].name == "f")
        #expect(parts[1].filename == name)
        #expect(parts[1].body == [1, 2, 3])
        // An injected header must never appear as a real header.
        #expect(parts.allSatisfy { $0.headers.count == ($0.filename == nil ? 1 : 2) })
    }

    @Test func emptyFileAndEmptyValue() throws {
        let dir = TemporaryDirectory()
        let empty = dir.file("empty.txt", [])
        let form = MultipartForm(parts: [.file("e", path: empty), .text("blank", ""), .fileAsText("t", path: empty)])
        let body = try form.makeBody()
        let parts = try parseMultipart(try body.bytes(), boundary: form.boundary.value)
        #expect(parts.map(\.body) == [[], [], []])
        #expect(parts.map(\.filename) == ["empty.txt", nil, nil])
        #expect(parts[0].contentType == "text/plain")
        #expect(body.segments.allSatisfy { if case .bytes = $0 { true } else { false } })
    }

    @Test func allByteValuesInMemoryAndFromFile() throws {
        let all = (0..<4).flatMap { _ in (0...255).map(UInt8.init) }
        let dir = TemporaryDirectory()
        let path = dir.file("all.bin", all)
        let form = MultipartForm(parts: [
            .data("mem", all, filename: "mem.bin"),
            .file("disk", path: path),
            .text("raw", bytes: all),
        ])
        let parts = try parseMultipart(try form.makeBody().bytes(), boundary: form.boundary.value)
        #expect(parts.map(\.body) == [all, all, all])
        #expect(parts[1].contentType == "application/octet-stream")
    }

    @Test func textThatLooksLikeABoundary() throws {
        let form = MultipartForm()
        let b = form.boundary.value
        let sneaky =
            "\r\n--\r\n--hoist-00000000000000000000000000000000\r\n--\(b.dropLast())\r\n--\(b.dropLast())--\r\n--"
        var withParts = form
        withParts.append(.text("sneaky", sneaky))
        withParts.append(.text("after", "ok"))
        let parts = try parseMultipart(try withParts.makeBody().bytes(), boundary: b)
        #expect(parts.map(\.text) == [sneaky, "ok"])
    }

    @Test func chosenBoundaryInsideAValueIsRefused() throws {
        let form = MultipartForm(boundary: try Boundary("abc"), parts: [.text("x", "data\r\n--abc--\r\n")])
        #expect(throws: FormDataError.boundaryInContent(field: "x")) { try form.makeBody() }
    }

    @Test func aThousandParts() throws {
        let dir = TemporaryDirectory()
        var form = MultipartForm()
        var expected: [(String, String?, [UInt8])] = []
        for index in 0..<1000 {
            switch index % 3 {
            case 0:
                form.append(.text("field\(index)", "value \(index)"))
                expected.append(("field\(index)", nil, Array("value \(index)".utf8)))
            case 1:
                let bytes = Array("file \(index) contents".utf8)
                let path = dir.file("f\(index).txt", bytes)
                form.append(.file("files[]", path: path))
                expected.append(("files[]", "f\(index).txt", bytes))
            default:
                form.append(.data("blob\(index)", [UInt8(index % 256)], filename: "b\(index).bin"))
                expected.append(("blob\(index)", "b\(index).bin", [UInt8(index % 256)]))
            }
        }
        let body = try form.makeBody()
        let bytes = try body.bytes()
        #expect(Int64(bytes.count) == body.contentLength)
        let parts = try parseMultipart(bytes, boundary: form.boundary.value)
        #expect(parts.count == 1000)
        for (part, want) in zip(parts, expected) {
            #expect(part.name == want.0)
            #expect(part.filename == want.1)
            #expect(part.body == want.2)
        }
    }

    @Test func nestedParametersFollowAFNetworking() throws {
        var form = MultipartForm()
        form.append(parameters: [
            "user": ["name": "a", "tags": ["x", "y"], "address": ["zip": 10115, "city": "Berlin"]],
            "active": true,
            "none": nil,
            "ratio": 1.5,
            "empty": [],
            "matrix": [["k": "v"]],
        ])
        let parts = try parseMultipart(try form.makeBody().bytes(), boundary: form.boundary.value)
        let pairs = parts.map { "\($0.name ?? "?")=\($0.text)" }
        #expect(
            pairs == [
                "active=true",
                "matrix[][k]=v",
                "none=",
                "ratio=1.5",
                "user[address][city]=Berlin",
                "user[address][zip]=10115",
                "user[name]=a",
                "user[tags][]=x",
                "user[tags][]=y",
            ])
        #expect(parts.allSatisfy { $0.contentType == nil && $0.filename == nil })
    }

    @Test func issueExampleOfNestedParameters() {
        let pairs = FormParameters.pairs(["user": ["name": "a", "tags": ["x", "y"]]])
        #expect(pairs.map(\.name) == ["user[name]", "user[tags][]", "user[tags][]"])
        #expect(pairs.map(\.value) == ["a", "x", "y"])
    }
}
