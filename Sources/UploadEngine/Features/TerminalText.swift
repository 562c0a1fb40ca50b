/// Text from outside Hoist (a server's message or body, a filename, a URL, a
/// header, a client's field name) made safe to write to a terminal: nothing
/// in it can set the window title, write the clipboard (OSC 52), move the
/// cursor or recolour what follows.
public enum TerminalText {
    /// `text` with what a terminal would act on shown escaped: the C0
    /// controls (ESC as `\x1b`; line feeds and tabs kept when `keepingLines`),
    /// DEL, the C1 controls (`\u{9b}`), and the bidirectional overrides that
    /// reorder a line as it is shown (`\u{202e}`).
    public static func escaped(_ text: String, keepingLines: Bool = false) -> String {
        var text = text
        let clean = text.withUTF8 { bytes in !bytes.contains { mayNeedEscape($0, keepingLines: keepingLines) } }
        if clean { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if keepingLines, scalar == "\n" || scalar == "\t" {
                out.unicodeScalars.append(scalar)
            } else if value < 0x20 || value == 0x7F {
                out += "\\x" + (value < 0x10 ? "0" : "") + String(value, radix: 16)
            } else if isC1(value) || isBidiControl(value) {
                out += "\\u{" + String(value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `bytes` as text when a terminal may be given them as they are: valid
    /// UTF-8 with no control but line breaks and tabs, no DEL, no C1, no
    /// bidirectional override. `false` for a binary body or one holding
    /// escape sequences.
    public static func isSafeToShow(_ bytes: [UInt8]) -> Bool {
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        guard bytes.contains(where: { mayNeedEscape($0, keepingLines: true) }) else { return true }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar == "\r" || !needsEscape(scalar.value)
        }
    }

    private static func needsEscape(_ value: UInt32) -> Bool {
        value < 0x20 && value != 0x0A && value != 0x09 || value == 0x7F || isC1(value) || isBidiControl(value)
    }

    /// The bytes that are, or lead, a character `escaped` changes: ASCII
    /// controls, DEL, 0xC2 (lead of the C1 controls) and 0xE2 (lead of the
    /// bidirectional overrides). A String is valid UTF-8, so no other byte can.
    @inline(__always)
    private static func mayNeedEscape(_ byte: UInt8, keepingLines: Bool) -> Bool {
        if byte < 0x20 { return !(keepingLines && (byte == 0x0A || byte == 0x09)) }
        return byte == 0x7F || byte == 0xC2 || byte == 0xE2
    }

    private static func isC1(_ value: UInt32) -> Bool { (0x80...0x9F).contains(value) }

    /// LRE, RLE, PDF, LRO, RLO (U+202A–202E), LRI, RLI, FSI, PDI (U+2066–2069).
    private static func isBidiControl(_ value: UInt32) -> Bool {
        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }
}
