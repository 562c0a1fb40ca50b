import Foundation
import Testing
import WireRules

@Suite struct JSONStringTests {
    func written(_ text: String) -> String { String(decoding: JSONString.quoted(text), as: UTF8.self) }

    /// What a JSON parser reads back is the text.
    func readBack(_ json: String) throws -> String? {
        (try JSONSerialization.jsonObject(with: Data(("[" + json + "]").utf8)) as? [String])?.first
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("say \"hi\" \\ bye", #""say \"hi\" \\ bye""#),
        ("\n\r\t\u{8}\u{C}\u{0}\u{1F}", #""\n\r\t\u0008\u000c\u0000\u001f""#),
        ("\u{1B}]0;t\u{7}", #""\u001b]0;t\u0007""#),
        ("del\u{7F} c1\u{80}\u{9F} nbsp\u{A0}", #""del\u007f c1\u0080\u009f nbsp\#u{A0}""#),
        ("js\u{2028}\u{2029}", #""js\u2028\u2029""#),
        ("gpj.\u{202E}exe \u{2066}\u{200F}\u{061C}", #""gpj.\u202eexe \u2066\u200f\u061c""#),
        ("身份证 — ©ا 😀 \u{200D}", "\"身份证 — ©ا 😀 \u{200D}\""),
        ("", #""""#),
    ])
    func escapes(_ text: String, _ json: String) throws {
        #expect(written(text) == json)
        #expect(try readBack(json) == text)
        #expect("\"" + JSONString.escaped(text) + "\"" == json, "the String form agrees")
    }

    @Test func runsBetweenEscapesAreCopiedWhole() throws {
        let text = String(repeating: "abc\"\u{2028}é\u{9B}", count: 300) + "end"
        let json = written(text)
        #expect(try readBack(json) == text)
        #expect(!json.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{9B}" })
    }

    @Test func everyScalarUpToU3000RoundTrips() throws {
        var text = ""
        for value in UInt32(0)..<0x3000 { if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) } }
        let json = written(text)
        #expect(try readBack(json) == text)
        for scalar in json.unicodeScalars.dropFirst().dropLast() where scalar != "\\" && scalar != "\"" {
            #expect(!JSONString.needsEscape(scalar), "\(scalar.value) left raw")
        }
    }

    @Test func aPickedScalarBeyondTheBMPIsASurrogatePair() throws {
        let json = JSONString.escaped("a😀\u{7}", needsEscape: { $0.value > 0xFFFF })
        #expect(json == #"a\ud83d\ude00\u0007"#, "C0 is escaped whatever the predicate")
        #expect(try readBack("\"" + json + "\"") == "a😀\u{7}")
        #expect(JSONString.escaped("\u{7F}\u{202E}", needsEscape: { _ in false }) == "\u{7F}\u{202E}")
    }
}
