import UploadEngine

/// Text helpers for the Response pane: making server text safe to put into
/// cells (no control characters, bounded length), JSON quoting, and the
/// small labels of the status line.
enum ResponseText {
    /// The most characters of one line or value kept for display. No pane is
    /// this wide, and it keeps a megabyte-long line from costing a megabyte of
    /// width measuring on every frame.
    static let maxCharacters = 1000

    /// `text` with tabs expanded (stops every 4 columns), carriage returns
    /// dropped and other control characters shown as U+FFFD, cut to
    /// `maxCharacters` with "…".
    static func displayable(_ text: some StringProtocol) -> String {
        // Most text is short and clean: no need to walk its characters.
        if text.utf8.count <= maxCharacters, !hasSpecialBytes(text.utf8, alsoQuotes: false) { return String(text) }
        let cut = text.prefix(maxCharacters)
        let isCut = cut.endIndex != text.endIndex
        if !cut.unicodeScalars.contains(where: isControl) {
            return isCut ? String(cut) + "…" : String(cut)
        }
        var out = ""
        var column = 0
        for character in cut {
            let first = character.unicodeScalars.first!
            if isControl(first) {
                switch first {
                case "\t":
                    let spaces = 4 - column % 4
                    out += String(repeating: " ", count: spaces)
                    column += spaces
                case "\r":
                    continue
                default:
                    out += "\u{FFFD}"
                    column += 1
                }
            } else {
                out.append(character)
                column += TextWidth.columns(of: character)
            }
        }
        return isCut ? out + "…" : out
    }

    /// The lines of a text (LF or CRLF), each made displayable. A final line
    /// break does not start another line.
    static func lines(_ text: String) -> [String] {
        var parts = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        return parts.map { displayable(Substring($0)) }
    }

    /// A string as a JSON literal in quotes, escaping quotes, backslashes and
    /// controls; cut to `maxCharacters` first.
    static func quoted(_ text: String) -> String {
        "\"" + escaped(text) + "\""
    }

    /// JSON escaping without the quotes (for object keys shown bare).
    static func escaped(_ text: String) -> String {
        if text.utf8.count <= maxCharacters, !hasSpecialBytes(text.utf8, alsoQuotes: true) { return text }
        let cut = text.prefix(maxCharacters)
        let isCut = cut.endIndex != text.endIndex
        guard cut.unicodeScalars.contains(where: { isControl($0) || $0 == "\"" || $0 == "\\" }) else {
            return isCut ? String(cut) + "…" : String(cut)
        }
        let out = JSONValue.escaped(cut, needsEscape: isControl)
        return isCut ? out + "…" : out
    }

    /// The text without leading and trailing spaces and tabs.
    static func trimmed(_ text: Substring) -> Substring {
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map { text.index(after: $0) } ?? start
        return text[start..<max(start, end)]
    }

    /// Whether the bytes may hold a control character (C0, DEL, or the lead
    /// byte 0xC2 of U+0080...U+00BF, which holds the C1 controls), or with
    /// `alsoQuotes` a quote or backslash. A plain loop: this runs for every
    /// value of a large document.
    static func hasSpecialBytes(_ bytes: some Sequence<UInt8>, alsoQuotes: Bool) -> Bool {
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || byte == 0xC2 { return true }
            if alsoQuotes, byte == 0x22 || byte == 0x5C { return true }
        }
        return false
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
    }

    /// "12 ms", "1.25 s", then "3m05s".
    static func elapsed(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds < 1000 { return "\(max(0, milliseconds)) ms" }
        if milliseconds < 60_000 { return Format.fixed(Double(milliseconds) / 1000, digits: 2) + " s" }
        return Format.duration(duration)
    }
}
