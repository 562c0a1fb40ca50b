import Testing

@testable import UploadEngine

@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func keepsKeyOrderAndNumberSpelling() throws {
        let value = try parse(#"{"RETCODE":"0000","z":1.50,"a":-2e10,"n":null,"t":true,"list":[1,{"x":"y"}]}"#)
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["RETCODE", "z", "a", "n", "t", "list"])
        #expect(value[path: "z"] == .number("1.50"))
        #expect(value[path: "a"]?.text == "-2e10")
        #expect(value[path: "list.1.x"] == .string("y"))
        #expect(value[path: "list.5"] == nil)
        #expect(value[path: "missing.deeper"] == nil)
        #expect(value.compactJSON == #"{"RETCODE":"0000","z":1.50,"a":-2e10,"n":null,"t":true,"list":[1,{"x":"y"}]}"#)
    }

    @Test func stringEscapesAndUnicode() throws {
        let value = try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude80身份证""#)
        #expect(value == .string("a\"b\\c/d\n\té🚀身份证"))
        #expect(try parse(#""\ud800""#) == .string("\u{FFFD}"))
        #expect(try parse(#""\u0000x""#) == .string("\u{0}x"))
        #expect(try parse(#"["plain","身份证 正面.jpg"]"#) == .array([.string("plain"), .string("身份证 正面.jpg")]))
        // Bytes that are not UTF-8, before or after an escape, are refused.
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x5C, 0x6E, 0x22]) }
        #expect(JSONValue.string("q\"\n\u{01}").compactJSON == #""q\"\n\u0001""#)
    }

    /// A document written around values written before is what writing it whole gives.
    @Test func anObjectAroundValuesWrittenBefore() throws {
        let header: [JSONValue.Member] = [.init("version", .number("1")), .init("a\"b", .string("x/y\n"))]
        let items = [try parse(#"{"z":1.50,"a":[]}"#), .null, .string("身份证")]
        for count in [0, 1, 3] {
            let written = JSONValue.compactJSONBytes(
                header, thenArrayAt: "tasks", ofWritten: items.prefix(count).map(\.compactJSONBytes))
            let whole = JSONValue.object(header + [.init("tasks", .array(Array(items.prefix(count))))])
            #expect(written == whole.compactJSONBytes)
            let withWorkspace = JSONValue.compactJSONBytes(
                header, written: [("workspace", items[0].compactJSONBytes)], thenArrayAt: "tasks",
                ofWritten: items.prefix(count).map(\.compactJSONBytes))
            let wholeWithWorkspace = JSONValue.object(
                header + [.init("workspace", items[0]), .init("tasks", .array(Array(items.prefix(count))))])
            #expect(withWorkspace == wholeWithWorkspace.compactJSONBytes)
        }
        #expect(JSONValue.compactJSONBytes([], thenArrayAt: "t", ofWritten: [[UInt8]]()) == Array(#"{"t":[]}"#.utf8))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\":}", "01", "1.", "-", "tru", "\"unterminated", "{\"a\" 1}", "[1] x",
        "\"tab\there\"", "{'a':1}", "nul", "[\"\\x\"]",
    ])
    func invalidDocumentsAreRefused(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try parse(text) }
    }

    @Test func hostileNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParser.Failure(message: "nesting deeper than 512 levels", offset: 512)) { try parse(deep) }
        let objects = String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(throws: JSONParser.Failure.self) { try parse(objects) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? parse(fine)) != nil)
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }
}
