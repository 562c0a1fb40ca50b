/// Terminal column widths, from Hoist's own table rather than libc's
/// `wcwidth`, which returns -1 for CJK under LC_ALL=C. East Asian wide and
/// fullwidth characters and emoji take two columns; combining marks take
/// none; a control character takes the one column of its picture.
public enum TextWidth {
    /// Columns a scalar occupies.
    public static func columns(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 1 }
        if value < 0x300 { return 1 }
        if isZeroWidth(value) { return 0 }
        return isWide(value) ? 2 : 1
    }

    /// Whether the scalar is a grapheme on its own whatever follows it:
    /// printable, not combining, not a joiner or selector, not a regional
    /// indicator, Hangul jamo or emoji modifier.
    static func isSingleScalarGrapheme(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x300 { return v >= 0x20 && v != 0x7F && !(0x80..<0xA0).contains(v) }
        if isZeroWidth(v) { return false }
        switch v {
        case 0x1100...0x11FF, 0x1F1E6...0x1F1FF, 0x1F3FB...0x1F3FF, 0xAC00...0xD7A3, 0xD800...0xDFFF: return false
        default: return true
        }
    }

    /// What the grid draws for a control character, so a file named with a
    /// tab or a newline shows where they are (`a␉b␊c.txt`) instead of
    /// losing them: its Unicode control picture, or U+FFFD for a C1 control
    /// (which has none); `nil` for any other scalar.
    public static func picture(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        if value < 0x20 { return Unicode.Scalar(0x2400 + value) }
        if value == 0x7F { return "\u{2421}" }
        if (0x80..<0xA0).contains(value) { return "\u{FFFD}" }
        return nil
    }

    /// `text` with each control character replaced by its picture.
    public static func pictured(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(picture(of: scalar) ?? scalar) }
        return String(scalars)
    }

    /// Columns a character (grapheme cluster) occupies: its first scalar
    /// decides, except that an emoji presentation selector makes it wide.
    public static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return columns(of: first)
    }

    /// The character as the grid draws it. An emoji sequence joined with
    /// U+200D or with a skin-tone modifier is one glyph in some terminals and
    /// several in others (tmux draws 👨‍👩‍👧 in 6 columns): it is drawn as its
    /// first emoji, which every terminal draws in the 2 columns counted here.
    public static func drawable(_ character: Character) -> Character {
        let scalars = character.unicodeScalars
        guard scalars.count > 1, let first = scalars.first,
            scalars.contains(where: { $0.value == 0x200D || (0x1F3FB...0x1F3FF).contains($0.value) })
        else { return character }
        let second = scalars.dropFirst().first
        return second?.value == 0xFE0F ? Character(String(first) + "\u{FE0F}") : Character(first)
    }

    public static func columns(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// The text cut to at most `width` columns, ending in "…" when cut.
    /// A wide character never straddles the limit.
    public static func truncate(_ text: String, toColumns width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(of: text) > width else { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = columns(of: character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// The text in rows of at most `width` columns, broken after a space
    /// where the row has one, a wide character never split; its own line
    /// breaks start new rows.
    public static func wrap(_ text: String, toColumns width: Int) -> [String] {
        guard width > 0 else { return [] }
        var rows: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var row = ""
            for character in paragraph {
                if columns(of: row) + columns(of: character) > width {
                    // Carry the unfinished word over, unless it is the whole row.
                    if let space = row.lastIndex(of: " "), space != row.startIndex {
                        rows.append(String(row[...space]))
                        row = String(row[row.index(after: space)...])
                    } else {
                        rows.append(row)
                        row = ""
                    }
                }
                row.append(character)
            }
            rows.append(row)
        }
        return rows
    }

    /// The text cut or padded with spaces to exactly `width` columns.
    public static func fit(_ text: String, toColumns width: Int, alignRight: Bool = false) -> String {
        let cut = truncate(text, toColumns: width)
        let padding = String(repeating: " ", count: max(0, width - columns(of: cut)))
        return alignRight ? padding + cut : cut + padding
    }

    /// `fit` for a name that may be a path: what is cut is the middle of
    /// the folders, so the file's name stays whole ("2026/…/身份证 正面.jpg").
    public static func fitPath(_ text: String, toColumns width: Int) -> String {
        guard columns(of: text) > width, let slash = text.lastIndex(of: "/") else { return fit(text, toColumns: width) }
        let file = String(text[text.index(after: slash)...])
        let room = width - columns(of: file) - 2  // "…/"
        guard room >= 1 else { return fit(file, toColumns: width) }
        // The folders are longer than their room (or the whole would fit): cut, they end in "…".
        return fit(truncate(String(text[..<slash]), toColumns: room + 1) + "/" + file, toColumns: width)
    }

    private static func isZeroWidth(_ value: UInt32) -> Bool {
        switch value {
        case 0x0300...0x036F, 0x0483...0x0489, 0x0591...0x05BD, 0x0610...0x061A, 0x064B...0x065F,
            0x0E31, 0x0E34...0x0E3A, 0x0E47...0x0E4E, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF,
            0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x20D0...0x20FF,
            0xFE00...0xFE0F, 0xFE20...0xFE2F, 0xFEFF, 0xE0100...0xE01EF:
            return true
        default:
            return false
        }
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
            0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB,
            0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA,
            0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C, 0x274E, 0x2753...0x2755, 0x2757,
            0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
            0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
            0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F,
            0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
