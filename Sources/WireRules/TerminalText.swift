/// Text from outside Hoist (a server's message or body, a filename, a URL, a
/// header, a client's field name) made safe to write to a terminal: nothing
/// in it can set the window title, write the clipboard (OSC 52), move the
/// cursor, recolour what follows or reorder the line as it is shown.
public enum TerminalText {
    /// `text` with what a terminal would act on shown escaped: the C0
    /// controls (ESC as `\x1b`; line feeds and tabs kept when `keepingLines`),
    /// DEL, the C1 controls (`\u{9b}`), and the bidirectional controls
    /// (`\u{202e}`; see ``isBidiControl(_:)``).
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
            } else if isControl(scalar) || isBidiControl(scalar) {
                out += "\\u{" + String(value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `bytes` as text when a terminal may be given them as they are: valid
    /// UTF-8 with no control but line breaks, carriage returns and tabs, no DEL,
    /// no C1, no bidirectional control. `false` for a binary body or one
    /// holding escape sequences.
    public static func isSafeToShow(_ bytes: [UInt8]) -> Bool {
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        guard bytes.contains(where: { mayNeedEscape($0, keepingLines: true) }) else { return true }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar == "\r" || scalar == "\n" || scalar == "\t" || !(isControl(scalar) || isBidiControl(scalar))
        }
    }

    /// User text quoted for a one-line message: single quotes, with `\`, `'`,
    /// the controls, the bidirectional controls and the invisible format
    /// characters escaped (`\n`, `\u{1B}`, `\u{202E}`), so the reader sees
    /// exactly what was typed and the line cannot be broken or reordered.
    public static func quoted(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\0": out += "\\0"
            case _ where isControl(scalar) || isBidiControl(scalar) || isInvisibleFormat(scalar):
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "'"
    }

    /// C0 (U+0000–001F), DEL and C1 (U+0080–009F): what a terminal acts on.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Unicode's Bidi_Control set: ALM (U+061C), LRM and RLM (U+200E–200F),
    /// LRE, RLE, PDF, LRO, RLO (U+202A–202E), LRI, RLI, FSI, PDI (U+2066–2069).
    /// The sanitizer had only the embeddings, overrides and isolates and the
    /// `-F` quoting lacked ALM; the marks reorder neutral text too (a
    /// filename's extension), so both now take the whole property.
    @inlinable
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// Zero-width space and joiners (U+200B–200D), the line and paragraph
    /// separators (U+2028–2029) and the BOM: invisible, so a quotation shows
    /// them; ``escaped(_:keepingLines:)`` keeps them, as a joiner belongs in emoji.
    @inlinable
    public static func isInvisibleFormat(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200B...0x200D, 0x2028, 0x2029, 0xFEFF: return true
        default: return false
        }
    }

    /// Whether `byte` is, or leads, a scalar that ``escaped(_:keepingLines:)``
    /// changes: a quick test that lets most text through without decoding it.
    @inline(__always)
    static func mayNeedEscape(_ byte: UInt8, keepingLines: Bool) -> Bool {
        if byte < 0x20 { return !(keepingLines && (byte == 0x0A || byte == 0x09)) }
        // DEL; 0xC2 leads the C1 controls, 0xD8 ALM, 0xE2 the other bidirectional controls.
        return byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
    }
}
