import FormData
import Foundation
import TestSupport
import Testing

/// The non-multipart encoders: urlencoded, raw file, JSON, base64 inside JSON.
@Suite struct OtherBodyTests {
    let dir = TemporaryDirectory()

    @Test func urlencodedLikeBrowsers() throws {
        let form = URLEncodedForm(fields: [
            FormField("name", "Zoë & co"), FormField("q", "a+b=c/d*-._~"), FormField("empty", ""),
        ])
        let body = form.makeBody()
        #expect(body.contentType == "application/x-www-form-urlencoded")
        #expect(
            String(decoding: try body.bytes(), as: UTF8.self) == "name=Zo%C3%AB+%26+co&q=a%2Bb%3Dc%2Fd*-._%7E&empty=")
        #expect(body.contentLength == Int64(try body.bytes().count))
    }

    @Test func urlencodedNestedParameters() throws {
        let body = URLEncodedForm(parameters: ["user": ["name": "a", "tags": ["x", "y"]]]).makeBody()
        #expect(
            String(decoding: try body.bytes(), as: UTF8.self)
                == "user%5Bname%5D=a&user%5Btags%5D%5B%5D=x&user%5Btags%5D%5B%5D=y")
    }

    @Test func rawFileIsTheWholeBodyWithItsType() throws {
        let path = dir.file("scan.png", [1, 2, 3])
        let body = try RequestBody.rawFile(path: path)
        #expect(body.contentType == "image/png")
        #expect(try body.bytes() == [1, 2, 3])
        #expect(try RequestBody.rawFile(path: dir.file("x.unknownext", [9])).contentType == "application/octet-stream")
        #expect(throws: FormDataError.fileNotFound(field: "", path: dir.path + "/nope.bin")) {
            try RequestBody.rawFile(path: dir.path + "/nope.bin")
        }
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 47, 48 * 1024 - 1, 48 * 1024, 48 * 1024 + 1, 200_001])
    func base64InsideJSONDecodesBack(size: Int) throws {
        var generator = SeededGenerator(state: UInt64(size) + 3)
        let bytes = randomBytes(size, using: &generator)
        let path = dir.file("身份证 正面.JPG", bytes)
        let request = Base64JSONBody(
            fileField: "image", path: path, fields: [FormField("user", "42"), FormField("note", "a \"quoted\"\nline")])
        let body = try request.makeBody()
        #expect(body.contentType == "application/json")
        let produced = try body.bytes()
        #expect(Int64(produced.count) == body.contentLength)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(produced)) as? [String: String])
        #expect(object["type"] == "jpg")
        #expect(object["user"] == "42")
        #expect(object["note"] == "a \"quoted\"\nline")
        #expect(Data(base64Encoded: try #require(object["image"])) == Data(bytes))
        // Key order: the file first, then type, then the fields.
        #expect(String(decoding: produced.prefix(10), as: UTF8.self) == "{\"image\":\"")
    }

    @Test func base64ThroughTinyBuffers() throws {
        let path = dir.file("a.bin", Array(0...255))
        let body = try Base64JSONBody(fileField: "f", path: path, typeField: nil).makeBody()
        let reader = body.makeReader()
        var out: [UInt8] = []
        while let chunk = try reader.nextChunk(maxSize: 5) { out += chunk }
        #expect(out == (try body.bytes()))
        #expect(String(decoding: out, as: UTF8.self) == "{\"f\":\"" + Data(0...255).base64EncodedString() + "\"}")
    }

    @Test func base64OfAChangedFileFails() throws {
        let path = dir.file("c.bin", [UInt8](repeating: 5, count: 100_000))
        let body = try Base64JSONBody(fileField: "f", path: path).makeBody()
        #expect(truncate(path, 10) == 0)
        #expect(throws: FormDataError.self) { try body.bytes() }
    }

    @Test func jsonBody() throws {
        let body = RequestBody.json(Array("{\"a\":1}".utf8))
        #expect(body.contentType == "application/json")
        #expect(try body.bytes() == Array("{\"a\":1}".utf8))
    }
}
