import Testing
import WireRules

@Suite struct TerminalTextRulesTests {
    @Test(arguments: [
        ("plain 身份证 正面.jpg 👨‍👩‍👧", "plain 身份证 正面.jpg 👨‍👩‍👧"),
        ("\u{1B}]52;c;cHduZWQ=\u{07}", #"\x1b]52;c;cHduZWQ=\x07"#),
        ("\u{9B}2J\u{9D}0;t\u{9C}\u{85}", #"\u{9b}2J\u{9d}0;t\u{9c}\u{85}"#),
        ("gpj.\u{202E}exe", #"gpj.\u{202e}exe"#),
        ("\u{2066}a\u{2067}b\u{2068}c\u{2069}", #"\u{2066}a\u{2067}b\u{2068}c\u{2069}"#),
        ("mark\u{200E}\u{200F}\u{061C}", #"mark\u{200e}\u{200f}\u{61c}"#),
        ("\u{202A}\u{202B}\u{202C}\u{202D}", #"\u{202a}\u{202b}\u{202c}\u{202d}"#),
        ("nbsp\u{A0}zwsp\u{200B}", "nbsp\u{A0}zwsp\u{200B}"),
        ("\u{0}\u{7F}", #"\x00\x7f"#),
    ])
    func escapesControlsAndEveryBidiControl(_ text: String, _ shown: String) {
        #expect(TerminalText.escaped(text) == shown)
        #expect(TerminalText.isSafeToShow(Array(text.utf8)) == (text == shown))
    }

    @Test func linesAreKeptOnlyWhenAsked() {
        #expect(TerminalText.escaped("a\nb\tc\r") == #"a\x0ab\x09c\x0d"#)
        #expect(TerminalText.escaped("a\nb\tc\r", keepingLines: true) == "a\nb\tc\\x0d")
        #expect(TerminalText.isSafeToShow(Array("a\r\nb\tc".utf8)))
    }

    @Test func bytesThatAreNotUTF8AreNotShown() {
        #expect(!TerminalText.isSafeToShow([0xC2]))
        #expect(!TerminalText.isSafeToShow([0xE2, 0x80]))
        #expect(!TerminalText.isSafeToShow([0xFF, 0xFE]))
        #expect(
            TerminalText.isSafeToShow(Array("\u{2014} \u{A9} \u{0627}".utf8)), "lead bytes E2, C2, D8 of harmless text")
    }

    @Test func quotedShowsWhatWasTyped() {
        #expect(TerminalText.quoted("it's\n\u{1B}[31m\\\u{202E}") == #"'it\'s\n\u{1B}[31m\\\u{202E}'"#)
        #expect(TerminalText.quoted("a\u{0}\r\t") == #"'a\0\r\t'"#)
        #expect(
            TerminalText.quoted("\u{200B}\u{200D}\u{2028}\u{2029}\u{FEFF}")
                == #"'\u{200B}\u{200D}\u{2028}\u{2029}\u{FEFF}'"#)
        #expect(TerminalText.quoted("\u{061C}\u{200E}\u{2069}\u{9F}") == #"'\u{61C}\u{200E}\u{2069}\u{9F}'"#)
        #expect(TerminalText.quoted("名 é") == "'名 é'")
    }

    @Test func everyScalarUpToU3000IsClassifiedOnce() {
        // The quick byte test must never let through a scalar the slow path would escape.
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "x" + String(scalar)
            let changed = TerminalText.escaped(text) != text
            #expect(changed == (TerminalText.isControl(scalar) || TerminalText.isBidiControl(scalar)), "\(value)")
        }
    }
}
