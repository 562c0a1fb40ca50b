import NIOCore
import TestSupport
import Testing

@testable import Receiver

/// The streaming multipart/form-data parser, through the handler that saves what it finds.
@Suite struct MultipartFormParserTests {
    /// What one body gave: fields, files with their saved bytes, or the error.
    struct Outcome: Equatable {
        var fields: [ReceivedUpload.Field] = []
        var files: [ReceivedUpload.File] = []
        var saved: [String: [UInt8]] = [:]
        var error: ReceiverError?
    }

    /// Feeds `body` cut at `cuts` (chunk sizes, repeated until the body is used up).
    func receive(_ body: [UInt8], boundary: String, cuts: [Int] = [Int.max]) -> Outcome {
        let directory = TemporaryDirectory()
        let handler = MultipartStreamHandler(boundary: boundary, directory: UploadDirectory(path: directory.path))
        var outcome = Outcome()
        var offset = 0
        var cut = 0
        do throws(ReceiverError) {
            while offset < body.count {
                let end = offset + min(cuts[cut % cuts.count], body.count - offset)
                try handler.feed(ByteBuffer(bytes: body[offset..<end]))
                offset = end
                cut += 1
            }
            try handler.finish()
        } catch {
            handler.abort()
            outcome.error = error
            #expect(listing(directory.path) == [], "abort() removes every file")
            return outcome
        }
        outcome.fields = handler.fields
        outcome.files = handler.files
        for file in handler.files { outcome.saved[file.savedAs] = fileBytes(directory.path + "/" + file.savedAs) }
        return outcome
    }

    /// Random chunk sizes from 1 to `largest`, reproducible from `seed`.
    func randomCuts(seed: UInt64, largest: Int) -> [Int] {
        pseudoRandomBytes(4000, seed: seed).map { 1 + Int($0) % largest }
    }

    func body(boundary: String, _ parts: [(headers: String, data: [UInt8])], preamble: String = "") -> [UInt8] {
        var body = Array(preamble.utf8)
        for (index, part) in parts.enumerated() {
            body += Array(((index == 0 && preamble.isEmpty ? "" : "\r\n") + "--\(boundary)\r\n").utf8)
            body += Array((part.headers + "\r\n").utf8) + part.data
        }
        return body + Array("\r\n--\(boundary)--\r\n".utf8)
    }

    func file(_ name: String, _ filename: String) -> String {
        "Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n"
            + "Content-Type: application/octet-stream\r\n"
    }

    func field(_ name: String) -> String { "Content-Disposition: form-data; name=\"\(name)\"\r\n" }

    @Test func wholeRandomChunksAndByteByByteGiveTheSameResult() {
        let boundary = "----hoist8f2c"
        let crHeavy = (0..<3000).map { UInt8([13, 10, 45, 13, 13, 0x68][$0 % 6]) }
        let data = pseudoRandomBytes(70_000, seed: 4) + crHeavy + Array("\r\n--".utf8)
        let form = body(
            boundary: boundary,
            [
                (field("user"), Array("小明\r\n".utf8)),
                (file("a", "a.bin"), data),
                (field("empty"), []),
                (file("b", "b.bin"), Array("\r".utf8)),
            ], preamble: "This is the preamble.\r\n")
        let whole = receive(form, boundary: boundary)
        #expect(whole.error == nil)
        #expect(whole.fields == [.init(name: "user", value: "小明\r\n"), .init(name: "empty", value: "")])
        #expect(whole.files.map(\.filename) == ["a.bin", "b.bin"])
        #expect(whole.saved["a.bin"] == data)
        #expect(whole.saved["b.bin"] == [13])
        #expect(whole.files.first?.sha256 == sha256(data))

        #expect(receive(form, boundary: boundary, cuts: [1]) == whole)
        for seed in 1...6 {
            let largest = [3, 17, 300, 9000, 70_000, 2][seed - 1]
            #expect(receive(form, boundary: boundary, cuts: randomCuts(seed: UInt64(seed), largest: largest)) == whole)
        }
    }

    @Test(arguments: [1, 2, 5, 1 << 20])
    func boundaryLikeBytesInsideDataStayData(chunkSize: Int) {
        let boundary = "bound"
        let lookalikes: [String] = [
            "\r\n--boun", "\r\n--bounD", "\r\n-bound", "\r\n--\r\n--bou", "\n--bound", "\r--bound", "\r\r\n--boun",
            "--bound\r\n", "\r\n--boun\r\n--bou",
        ]
        let data = Array(lookalikes.joined(separator: "x").utf8) + Array("\r\n--bou".utf8)
        let form = body(boundary: boundary, [(file("f", "f.txt"), data), (field("after"), Array("--bound".utf8))])
        let outcome = receive(form, boundary: boundary, cuts: [chunkSize])
        #expect(outcome.error == nil)
        #expect(outcome.saved["f.txt"] == data)
        #expect(outcome.fields == [.init(name: "after", value: "--bound")])
    }

    /// A chunk that ends on a CR, inside data or right where a delimiter starts.
    @Test func carriageReturnAtTheEndOfAChunk() {
        let boundary = "b"
        let data = Array("one\rtwo\r".utf8)
        let form = body(boundary: boundary, [(file("f", "f.txt"), data), (field("n"), Array("v".utf8))])
        let crOffsets = form.indices.filter { form[$0] == 13 }
        for cr in crOffsets {
            let outcome = receive(form, boundary: boundary, cuts: [cr + 1, form.count])
            #expect(outcome.error == nil, "cut after the CR at \(cr)")
            #expect(outcome.saved["f.txt"] == data)
            #expect(outcome.fields == [.init(name: "n", value: "v")])
        }
    }

    @Test(arguments: [1, 1 << 20])
    func transportPaddingAfterABoundaryIsAllowed(chunkSize: Int) {
        let text = "--b \t \r\n" + field("x") + "\r\n1\r\n--b\t\r\n" + field("y") + "\r\n2\r\n--b-- \r\nepilogue"
        let outcome = receive(Array(text.utf8), boundary: "b", cuts: [chunkSize])
        #expect(outcome.error == nil)
        #expect(outcome.fields == [.init(name: "x", value: "1"), .init(name: "y", value: "2")])
    }

    @Test func theEpilogueIsIgnored() {
        let text = "--b\r\n" + field("x") + "\r\n1\r\n--b--\r\n--b\r\n\u{FF}garbage: \u{E9}\r\n\r\n"
        #expect(receive(Array(text.utf8), boundary: "b").fields == [.init(name: "x", value: "1")])
    }

    @Test(arguments: [1, 1 << 20])
    func aMissingCloseDelimiterIsRefused(chunkSize: Int) {
        let ended = ReceiverError.badRequest(
            "malformed multipart/form-data body: it ended before the closing boundary \"--b--\"")
        let bodies = [
            "--b\r\n" + file("f", "f.txt") + "\r\nhalf",
            "--b\r\n" + file("f", "f.txt") + "\r\nall\r\n--b",
            "--b\r\n" + file("f", "f.txt") + "\r\nall\r\n--b-",
            "--b\r\n" + file("f", "f.txt") + "\r\nall\r\n--b\r\n",
            "--b\r\n" + field("x") + "\r",
            "preamble only",
        ]
        for text in bodies {
            #expect(receive(Array(text.utf8), boundary: "b", cuts: [chunkSize]).error == ended, "\(text)")
        }
    }

    @Test(arguments: [1, 1 << 20])
    func badBoundaryLinesAndHeadersAreRefused(chunkSize: Int) {
        let unparsable = ReceiverError.badRequest(
            "malformed multipart/form-data body: a part's boundary line or headers cannot be parsed")
        let bodies = [
            "--bX\r\n" + field("x") + "\r\nv\r\n--b--",
            "--b\r\n" + field("x") + "\r\nv\r\n--b-x",
            "--b \rx" + field("x") + "\r\nv\r\n--b--",
            "--b\r\nNo Colon Here\r\n\r\nv\r\n--b--",
            "--b\r\n: empty name\r\n\r\nv\r\n--b--",
            "--b\r\nContent-Type: text/plain\rX\r\n\r\nv\r\n--b--",
            "--b\r\n\rX",
        ]
        for text in bodies {
            #expect(receive(Array(text.utf8), boundary: "b", cuts: [chunkSize]).error == unparsable, "\(text)")
        }
    }

    @Test(arguments: [1, 2, 1 << 20])
    func aHeaderNameThatIsNotASCIIIsRefused(chunkSize: Int) {
        let refusal = ReceiverError.badRequest(
            "malformed multipart/form-data body: a part's header name holds a byte that is not ASCII")
        let text = "--b\r\n" + field("x") + "Größe: 1\r\n\r\nv\r\n--b--\r\n"
        #expect(receive(Array(text.utf8), boundary: "b", cuts: [chunkSize]).error == refusal)
    }

    @Test func headerNamesAreCaseInsensitiveAndValuesKeepTheirText() {
        let text =
            "--b\r\ncOnTeNt-DiSpOsItIoN:form-data; name=\"f\"; filename=\"x.txt\"\r\nCONTENT-TYPE: \t text/plain\r\n"
            + "X-Other: ignored\r\n\r\nhi\r\n--b--"
        let outcome = receive(Array(text.utf8), boundary: "b", cuts: [1])
        #expect(outcome.files.map(\.contentType) == ["text/plain"])
        #expect(outcome.files.map(\.name) == ["f"])
        #expect(outcome.saved["x.txt"] == Array("hi".utf8))
    }

    @Test func tooManyHeaderBytesAreRefused() {
        let refusal = ReceiverError.badRequest(
            "malformed multipart/form-data body: more than 64 KiB of preamble or part headers")
        let longHeader = "--b\r\nX-Long: " + String(repeating: "a", count: 70_000) + "\r\n\r\nv\r\n--b--"
        #expect(receive(Array(longHeader.utf8), boundary: "b", cuts: [4096]).error == refusal)
        let longPreamble = String(repeating: "p", count: 70_000) + "\r\n--b\r\n" + field("x") + "\r\nv\r\n--b--"
        #expect(receive(Array(longPreamble.utf8), boundary: "b", cuts: [4096]).error == refusal)
        // Large part data is not structure.
        let bigData = "--b\r\n" + file("f", "f.txt") + "\r\n" + String(repeating: "d", count: 200_000) + "\r\n--b--"
        #expect(receive(Array(bigData.utf8), boundary: "b", cuts: [4096]).error == nil)
    }

    @Test func anEmptyFormHasNoParts() {
        let outcome = receive(Array("--b--\r\n".utf8), boundary: "b")
        #expect(outcome == Outcome())
    }

    /// A body exactly as curl -F writes it, saved by the receiver as a raw body, then fed to the parser
    /// in several ways.
    @Test func aBodyWrittenByCurl() async throws {
        let files = TemporaryDirectory()
        let photo = pseudoRandomBytes(200_000, seed: 21)
        let photoPath = files.file("照片 1.jpg", photo)
        let notePath = files.file("note.txt", Array("a\r\n--line\r\n".utf8))
        var raw: [UInt8] = []
        try await withReceiver { server in
            let result = try await Curl.run([
                "-H", "Content-Type: application/octet-stream",
                "-F", "user_id=42", "-F", "photo=@\(photoPath)", "-F", "note=@\(notePath);type=text/plain",
                server.url + "/body.bin",
            ])
            #expect(result.status == 200)
            raw = fileBytes(server.saved("body.bin")) ?? []
        }
        // curl's first line is `--` and its boundary.
        let firstLine = try #require(raw.firstIndex(of: 13))
        let boundary = String(decoding: raw[2..<firstLine], as: UTF8.self)
        #expect(boundary.count >= 20)

        let whole = receive(raw, boundary: boundary)
        #expect(whole.error == nil)
        #expect(whole.fields == [.init(name: "user_id", value: "42")])
        #expect(whole.files.map(\.filename) == ["照片 1.jpg", "note.txt"])
        #expect(whole.files.map(\.contentType) == ["image/jpeg", "text/plain"])
        #expect(whole.saved["照片 1.jpg"] == photo)
        #expect(whole.saved["note.txt"] == Array("a\r\n--line\r\n".utf8))
        #expect(receive(raw, boundary: boundary, cuts: [1]) == whole)
        #expect(receive(raw, boundary: boundary, cuts: randomCuts(seed: 7, largest: 5000)) == whole)
    }
}
