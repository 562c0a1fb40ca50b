import FormData
import TestSupport
import Testing

/// Over many random forms, the announced Content-Length equals the bytes
/// produced, whatever the read sizes, and the parts parse back unchanged.
@Suite struct LengthPropertyTests {
    static let nameAlphabet: [String] = [
        "a", "Z", "9", "\"", "\r", "\n", ";", "\\", "=", " ", "%", "身", "份", "🚀", "é", "[", "]", "-",
    ]

    static func randomName(using generator: inout SeededGenerator) -> String {
        let length = Int.random(in: 0...12, using: &generator)
        return (0..<length).map { _ in nameAlphabet.randomElement(using: &generator)! }.joined()
    }

    static func randomSize(using generator: inout SeededGenerator) -> Int {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return 0
        case 1...6: return Int.random(in: 1...300, using: &generator)
        case 7, 8: return Int.random(in: 300...20_000, using: &generator)
        default: return Int.random(in: 20_000...100_000, using: &generator)
        }
    }

    struct Expected {
        var name: String
        var filename: String?
        var body: [UInt8]
    }

    @Test(arguments: 0..<200)
    func lengthEqualsBytesProduced(seed: UInt64) throws {
        var generator = SeededGenerator(state: seed &* 7919 &+ 1)
        let dir = TemporaryDirectory()
        var form = MultipartForm()
        var expected: [Expected] = []
        for index in 0..<Int.random(in: 0...12, using: &generator) {
            let name = Self.randomName(using: &generator)
            let bytes = randomBytes(Self.randomSize(using: &generator), using: &generator)
            let headers = (0..<Int.random(in: 0...2, using: &generator)).map {
                HeaderField(
                    "X-H\($0)",
                    String(
                        String.UnicodeScalarView(
                            Self.randomName(using: &generator).unicodeScalars.filter { $0 != "\r" && $0 != "\n" })))
            }
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                form.append(.text(name, bytes: bytes, headers: headers))
                expected.append(Expected(name: name, filename: nil, body: bytes))
            case 1:
                let filename = Self.randomName(using: &generator)
                form.append(.data(name, bytes, filename: filename, headers: headers))
                expected.append(Expected(name: name, filename: filename, body: bytes))
            case 2:
                let path = dir.file("file\(index)", bytes)
                let filename = Self.randomName(using: &generator)
                form.append(.file(name, path: path, filename: filename, headers: headers))
                expected.append(Expected(name: name, filename: filename, body: bytes))
            default:
                let path = dir.file("text\(index)", bytes)
                form.append(.fileAsText(name, path: path, headers: headers))
                expected.append(Expected(name: name, filename: nil, body: bytes))
            }
        }
        let body = try form.makeBody()
        let length = try #require(body.contentLength)

        let reader = body.makeReader()
        let bufferSize = (length < 50_000 ? [1, 3, 64, 1000] : [17, 4096, 65536, 1 << 20]).randomElement(
            using: &generator)!
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var produced: [UInt8] = []
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            produced += buffer[0..<count]
        }
        #expect(Int64(produced.count) == length, "seed \(seed), buffer \(bufferSize)")
        #expect(reader.bytesProduced == length)

        // multipart-kit cannot parse a form with no parts (RFC 2046 asks for
        // one); Hoist sends what browsers send for an empty form.
        if expected.isEmpty {
            #expect(produced == Array("--\(form.boundary.value)--\r\n".utf8))
            return
        }
        let parts = try parseMultipart(
            produced, boundary: form.boundary.value, sliceSize: Int.random(in: 64...8192, using: &generator))
        #expect(parts.count == expected.count, "seed \(seed)")
        for (part, want) in zip(parts, expected) {
            #expect(part.name == want.name, "seed \(seed)")
            #expect(part.filename == want.filename, "seed \(seed)")
            #expect(part.body == want.body, "seed \(seed)")
        }
    }

    @Test func lengthIsNilWithAStream() throws {
        let form = MultipartForm(parts: [.text("a", "b"), .stream("s", from: .standardInput)])
        #expect(try form.makeBody().contentLength == nil)
    }
}
