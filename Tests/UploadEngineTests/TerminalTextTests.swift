import Testing
import UploadEngine

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("plain 身份证 正面.jpg", false, "plain 身份证 正面.jpg"),
        ("\u{1B}]0;pwned\u{07}", false, #"\x1b]0;pwned\x07"#),
        ("\u{1B}[31mred\u{7F}", false, #"\x1b[31mred\x7f"#),
        ("C1 \u{9B}2J \u{9D}0;x\u{9C}", false, #"C1 \u{9b}2J \u{9d}0;x\u{9c}"#),
        ("gpj.\u{202E}exe", false, #"gpj.\u{202e}exe"#),
        ("two\nlines\tand\r", false, #"two\x0alines\x09and\x0d"#),
        ("two\nlines\tand\r", true, "two\nlines\tand\\x0d"),
        ("NUL\u{0}", true, #"NUL\x00"#),
    ])
    func escapesWhatATerminalWouldActOn(_ text: String, _ keepingLines: Bool, _ shown: String) {
        #expect(TerminalText.escaped(text, keepingLines: keepingLines) == shown)
    }

    @Test func aBodyIsSafeToShowOnlyAsPlainText() {
        #expect(TerminalText.isSafeToShow(Array("{\"ok\":true}\r\n身份证\tx".utf8)))
        #expect(!TerminalText.isSafeToShow(Array("title \u{1B}]0;pwned\u{07}".utf8)))
        #expect(!TerminalText.isSafeToShow(Array("\u{9B}31m".utf8)))
        #expect(!TerminalText.isSafeToShow([0x89, 0x50, 0x4E, 0x47]), "a PNG is not text")
        #expect(!TerminalText.isSafeToShow([0x41, 0x9B, 0x41]), "a lone C1 byte is not UTF-8")
        #expect(!TerminalText.isSafeToShow([0x41, 0x00]), "NUL")
    }

    /// `--json` lines, the history and the journal: DEL and C1 escaped too,
    /// and what a JSON parser reads back is the text.
    @Test func jsonEscapesDELAndC1() throws {
        let text = "a\u{7F}b\u{80}c\u{9F}d\u{A0}e\u{1B}"
        let json = JSONValue.string(text).compactJSON
        #expect(json == #""a\u007fb\u0080c\u009fd\#u{A0}e\u001b""#)
        #expect(try JSONParser.parse(Array(json.utf8)) == .string(text))
    }
}
