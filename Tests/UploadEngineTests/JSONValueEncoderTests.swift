import FormData
import Foundation
import Testing

@testable import UploadEngine

/// `JSONValue(encoding:)` writes what the journal keeps of every task: it
/// must read back through `JSONDecoder` as the same value, and hold what
/// Foundation's `JSONEncoder` would have written.
@Suite struct JSONValueEncoderTests {
    static let requests: [UploadRequest] = [
        UploadRequest(
            url: "http://127.0.0.1:8080/upload",
            body: .multipart(
                MultipartForm(parts: [
                    .text("name", "身份证 \"正面\"\n\\ \u{1}"),
                    .file("front", path: "/tmp/身份证 正面.jpg", filename: "a\"b.jpg", contentType: "image/jpeg"),
                    .stream("log", from: .standardInput, filename: "-"),
                    .data("raw", [0, 255, 10], filename: "raw.bin"),
                ]))),
        UploadRequest(
            url: "https://api.example.com/v1?token=x", method: .put,
            headers: [HeaderField("Authorization", "Bearer ${TOKEN}"), HeaderField("X-Empty", "")],
            body: .urlencoded(URLEncodedForm(fields: [FormField("a b", "c&d"), FormField("", "")])),
            timeouts: Timeouts(connect: .milliseconds(1500), idle: .seconds(30), total: .seconds(600)),
            retry: RetryPolicy(maxRetries: 0, baseDelay: .milliseconds(10), maxDelay: .seconds(1)),
            success: SuccessRule(
                expectations: [.init(path: "data.RETCODE", value: "0000")], messagePath: "data.MESSAGE"),
            label: "front"),
        UploadRequest(url: "http://h/", body: .json(Array(#"{"a":[1,2]}"#.utf8))),
        UploadRequest(
            url: "http://h/", method: .patch,
            body: .bytes(Array("a=1&b=2".utf8), contentType: "application/x-www-form-urlencoded")),
        UploadRequest(url: "http://h/", body: .rawFile(path: "/srv/build.tar.gz")),
        UploadRequest(url: "http://h/", body: .rawFile(path: "/srv/a", contentType: "application/gzip")),
        // What a journal holds per task of a batch: text and file parts, headers on a part, an empty form.
        UploadRequest(
            url: "http://h/",
            body: .multipart(
                MultipartForm(parts: [
                    .text("id", "7"),
                    .file("file", path: "bench/out/f0001.bin"),
                    .file(
                        "photo", path: "/tmp/正面.jpg", filename: "正面.jpg", contentType: "image/jpeg",
                        headers: [HeaderField("X-Side", "front")]),
                    .text("empty", ""),
                ]))),
        UploadRequest(url: "http://h/", body: .multipart(MultipartForm(parts: []))),
        UploadRequest(
            url: "http://h/",
            body: .multipart(
                MultipartForm(parts: [.data("raw", [0, 255, 10], filename: "raw.bin"), .text("note", "\u{7F}é")]))),
        UploadRequest(
            url: "http://h/",
            body: .base64JSON(
                Base64JSONBody(
                    fileField: "image", path: "/tmp/x.png", typeField: nil, fields: [FormField("id", "7")]))),
    ]

    @Test(arguments: requests)
    func readsBackThroughJSONDecoderAsTheSameRequest(request: UploadRequest) throws {
        let bytes = try JSONValue(encoding: request).compactJSONBytes
        #expect(try JSONDecoder().decode(UploadRequest.self, from: Data(bytes)) == request)
        // The document Foundation writes (whose key order is its dictionary's).
        let foundation = try JSONParser.parse(Array(JSONEncoder().encode(request)))
        #expect(sortedKeys(try JSONParser.parse(bytes)) == sortedKeys(foundation))
    }

    /// The journal writes the common bodies by hand (`encodedJSON`): the
    /// same text as the Encoder's, key order included, or nothing.
    @Test(arguments: requests)
    func bodiesWrittenByHandMatchTheEncoder(request: UploadRequest) throws {
        let encoder = try JSONValue(encoding: request.body).compactJSON
        switch request.body {
        case .multipart(let form) where form.parts.contains { if case .stream = $0.content { true } else { false } }:
            #expect(request.body.encodedJSON == nil)
        case .multipart, .rawFile:
            #expect(request.body.encodedJSON?.compactJSON == encoder)
        default:
            #expect(request.body.encodedJSON == nil)
        }
    }

    @Test func fileSnapshotsWrittenByHandMatchTheEncoder() throws {
        let snapshot = try #require(FileSnapshot(path: "/"))
        #expect(snapshot.encodedJSON.compactJSON == (try JSONValue(encoding: snapshot).compactJSON))
    }

    @Test func numbersNestingAndNil() throws {
        struct Sample: Codable, Equatable {
            var int = -7
            var big = UInt64.max
            var double = 1.5
            var none: String? = nil
            var nested = [[1, 2], []]
            var dictionary = ["k": true]
            var snapshot = FileSnapshot(path: "/")
            var single = Single()
        }
        /// A value encoded through a single-value container holding a container.
        struct Single: Codable, Equatable {
            var list = ["a"]
            init() {}
            init(from decoder: any Decoder) throws { list = try decoder.singleValueContainer().decode([String].self) }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(list)
            }
        }
        let bytes = try JSONValue(encoding: Sample()).compactJSONBytes
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""big":18446744073709551615"#))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""single":["a"]"#))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("none"))
        #expect(try JSONDecoder().decode(Sample.self, from: Data(bytes)) == Sample())
        #expect(throws: EncodingError.self) { try JSONValue(encoding: [Double.nan]) }
    }

    /// Containers handed out are filled in after their parent went on; they
    /// still land in their own places.
    @Test func containersFilledInLater() throws {
        struct Late: Encodable {
            enum Key: String, CodingKey { case list, inner, after }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                var inner = container.nestedContainer(keyedBy: Key.self, forKey: .inner)
                try container.encode(1, forKey: .after)
                try list.encode("a")
                var nested = list.nestedUnkeyedContainer()
                try list.encode("b")
                try nested.encode(true)
                try inner.encode(2, forKey: .after)
            }
        }
        let written = try JSONValue(encoding: Late()).compactJSON
        #expect(written == #"{"list":["a",[true],"b"],"inner":{"after":2},"after":1}"#)
    }
}

private func sortedKeys(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let members):
        return .object(members.map { .init($0.key, sortedKeys($0.value)) }.sorted { $0.key < $1.key })
    case .array(let items): return .array(items.map(sortedKeys))
    default: return value
    }
}
