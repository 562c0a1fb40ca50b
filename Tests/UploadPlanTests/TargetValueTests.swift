import Foundation
import Testing
import UploadEngine
import UploadPlan

/// Each validator accepts what the README documents and refuses the rest
/// with one wording, which the profile, the command line and the UI show.
struct TargetValueTests {
    @Test func methodsInAnyCase() throws {
        #expect(try TargetValue.method("put") == .put)
        #expect(throws: TargetValueError("\"GET\" is not an upload method: use POST, PUT or PATCH")) {
            try TargetValue.method("GET")
        }
    }

    @Test func headerNamesAreTokensAndValuesHaveNoLineBreak() throws {
        #expect(try TargetValue.headerLine("  X-Trace :  a b  ") == .init("X-Trace", "a b"))
        for name in ["", "X Trace", "Bad\u{7F}", "(x)", "é"] {
            #expect(
                throws: TargetValueError(
                    "\(String(reflecting: name)) is not a header name: use letters, digits and !#$%&'*+-.^_`|~ only"
                )
            ) { try TargetValue.header(name: name, value: "v") }
        }
        #expect(throws: TargetValueError("the value of header X-A holds a line break (CR or LF)")) {
            try TargetValue.header(name: "X-A", value: "a\r\nInjected: 1")
        }
        #expect(throws: TargetValueError("\"NoColon\" is not a header: expected \"Name: value\"")) {
            try TargetValue.headerLine("NoColon")
        }
    }

    @Test func durationsAreSecondsAboveZeroKeptToTheMillisecond() throws {
        #expect(try TargetValue.seconds(2.5) == .milliseconds(2500))
        #expect(try TargetValue.seconds(" 30 ") == .seconds(30))
        #expect(try TargetValue.seconds(0.0001) == .milliseconds(1))
        let refusal = "is not a duration: give seconds above 0, e.g. 30 or 2.5"
        #expect(throws: TargetValueError("0 " + refusal)) { try TargetValue.seconds(0) }
        #expect(throws: TargetValueError("-1 " + refusal)) { try TargetValue.seconds(-1) }
        #expect(throws: TargetValueError("inf " + refusal)) { try TargetValue.seconds(.infinity) }
        #expect(throws: TargetValueError("\"soon\" " + refusal)) { try TargetValue.seconds("soon") }
        #expect(TargetValue.text(seconds: .milliseconds(2500)) == "2.5")
        #expect(TargetValue.text(seconds: .seconds(30)) == "30")
    }

    @Test func chunkSizesAreAutoOrBinarySizesAndReadBackAsWritten() throws {
        #expect(try TargetValue.chunkSize(" Auto ") == .automatic)
        #expect(try TargetValue.chunkSize("8M") == .fixed(8 << 20))
        #expect(try TargetValue.chunkSize("512KiB") == .fixed(512 << 10))
        #expect(try TargetValue.chunkSize("1048576") == .fixed(1 << 20))
        for chunk in [TusChunkSize.automatic, .fixed(24 << 20), .fixed(100_000)] {
            #expect(try TargetValue.chunkSize(TargetValue.text(chunk: chunk)) == chunk)
        }
        #expect(
            throws: TargetValueError(
                "\"8 parsecs\" is not a chunk size: give auto, bytes, or a number with K, M or G, e.g. 8M")
        ) {
            try TargetValue.chunkSize("8 parsecs")
        }
        #expect(throws: TargetValueError("8589934592 bytes is not a chunk size: give 16K to 4G")) {
            try TargetValue.chunkSize("8G")
        }
    }

    @Test func aJournalFromBeforeAutomaticChunksKeepsItsSize() throws {
        // As journals wrote a target when every chunk was 8 MiB (before the option table's form).
        let old = TargetSettingsTests.legacyJSON(#""url":"http://h/files","chunkSize":8388608"#)
        let decoded = try JSONDecoder().decode(Target.self, from: Data(old.utf8))
        #expect(decoded.chunkSize == .fixed(8 << 20))
        let now = try JSONDecoder().decode(Target.self, from: JSONEncoder().encode(Target(url: "http://h/files")))
        #expect(now.chunkSize == .automatic)
    }

    @Test func retriesConcurrencyExpectationsURLsAndBodies() throws {
        #expect(try TargetValue.retries("0") == 0)
        #expect(throws: TargetValueError("-1 is not a number of retries: give a whole number from 0 to 100")) {
            try TargetValue.retries(-1)
        }
        #expect(throws: TargetValueError("\"x\" is not a number of retries: give a whole number from 0 to 100")) {
            try TargetValue.retries("x")
        }
        #expect(throws: TargetValueError("0 is not a number of uploads at once: give a whole number, at least 1")) {
            try TargetValue.concurrency(0)
        }
        #expect(try TargetValue.expectation("data.code=0") == .init(path: "data.code", value: "0"))
        #expect(throws: TargetValueError("\"=0\" is not an expectation: expected key.path=value")) {
            try TargetValue.expectation("=0")
        }
        #expect(try TargetValue.bodyKind("RAW FILE") == .raw)
        #expect(
            throws: TargetValueError(
                "\"xml\" is not a body kind: use multipart, base64 JSON, raw file, urlencoded or JSON")
        ) {
            try TargetValue.bodyKind("xml")
        }
        #expect(try TargetValue.url("http://127.0.0.1:1/x") == "http://127.0.0.1:1/x")
        do {
            _ = try TargetValue.url("ftp://host/x")
            Issue.record("ftp is refused")
        } catch {
            #expect(error.description.contains("http or https"))
        }
    }
}
