import WireRules

/// The tokenizer under `CurlFormArgument.parse`: a byte-for-byte model of
/// curl's `get_param_word` and `get_param_part` (src/tool_formparse.c).
///
/// curl works on a NUL-terminated copy of the argument that it cuts up in
/// place; here `index` plays the part of curl's `p`, and `byte(at:)` returns
/// 0 past the end the way curl's `*p` reads the terminator. The `;`
/// modifiers are in `CurlFormScanner+Modifiers.swift`.
struct CurlFormScanner {
    let argument: String
    let option: String
    let bytes: [UInt8]
    var index = 0
    /// What curl would have warned about, in order.
    var warnings: [String] = []

    init(argument: String, option: String) throws(CurlFormSyntaxError) {
        self.argument = argument
        self.option = option
        bytes = Array(argument.utf8)
        // curl copies the argument with strdup, so a NUL would silently cut it short.
        if bytes.contains(0) { throw error("contains a NUL character") }
    }

    func error(_ reason: String) -> CurlFormSyntaxError {
        CurlFormSyntaxError(argument: argument, reason: reason, option: option)
    }

    /// `contp = strchr(contents, '=')`: the name is everything before the
    /// first `=`, and may be empty; no `=` is an error.
    func splitName() throws(CurlFormSyntaxError) -> (name: String, valueStart: Int) {
        guard let equals = bytes.firstIndex(of: CurlByte.equals) else {
            throw error("expected name=value")
        }
        return (String(decoding: bytes[..<equals], as: UTF8.self), equals + 1)
    }

    // MARK: get_param_word

    struct Word {
        var bytes: [UInt8]
        var quoted: Bool
    }

    /// Skips leading spaces, reads a word, and strips trailing spaces unless
    /// it was quoted: the pattern every caller of `get_param_word` follows.
    mutating func spacedWord(until endchar: UInt8?) -> [UInt8] {
        skipSpaces()
        let word = word(until: endchar)
        return word.quoted ? word.bytes : CurlByte.trimmedTrailingSpaces(word.bytes)
    }

    /// curl's `get_param_word`. A word that starts with `"` runs to the next
    /// unescaped `"`; inside it `\"` and `\\` are the only escapes (any other
    /// backslash is kept). Whatever follows the closing quote up to `;` or
    /// `endchar` is dropped with a warning. Without a closing quote the word
    /// is read as unquoted, quote included. An unquoted word runs to `;` or
    /// `endchar`.
    mutating func word(until endchar: UInt8?) -> Word {
        let begin = index
        if byte(at: begin) == CurlByte.quote {
            if let quoted = quotedWord(from: begin, until: endchar) { return quoted }
            // "end quote is missing, treat it as non-quoted."
            let end = wordEnd(from: begin, until: endchar)
            warnings.append(
                "no closing quote in \(TerminalText.quoted(String(decoding: bytes[begin..<end], as: UTF8.self))):"
                    + " sent as written, quote included, as curl does")
        }
        let end = wordEnd(from: begin, until: endchar)
        index = end
        return Word(bytes: Array(bytes[begin..<end]), quoted: false)
    }

    /// The quoted word that starts at `begin`, or `nil` when its closing quote is missing.
    private mutating func quotedWord(from begin: Int, until endchar: UInt8?) -> Word? {
        var position = begin + 1
        var value: [UInt8] = []
        while position < bytes.count {
            let current = bytes[position]
            if current == CurlByte.backslash, position + 1 < bytes.count,
                bytes[position + 1] == CurlByte.backslash || bytes[position + 1] == CurlByte.quote
            {
                value.append(bytes[position + 1])
                position += 2
                continue
            }
            if current == CurlByte.quote {
                position += 1
                var trailingData = false
                while position < bytes.count, bytes[position] != CurlByte.semicolon, bytes[position] != endchar {
                    if !CurlByte.isSpace(bytes[position]) { trailingData = true }
                    position += 1
                }
                if trailingData {
                    let written = String(decoding: bytes[begin..<position], as: UTF8.self)
                    warnings.append(
                        "ignored what follows the closing quote in \(TerminalText.quoted(written))"
                            + " (curl: \"Trailing data after quoted form parameter\")")
                }
                index = position
                return Word(bytes: value, quoted: true)
            }
            value.append(current)
            position += 1
        }
        return nil
    }

    /// Where an unquoted word that starts at `begin` ends: at `;`, `endchar` or the end.
    private func wordEnd(from begin: Int, until endchar: UInt8?) -> Int {
        var end = begin
        while end < bytes.count, bytes[end] != CurlByte.semicolon, bytes[end] != endchar { end += 1 }
        return end
    }

    // MARK: helpers

    func byte(at position: Int) -> UInt8 {
        position < bytes.count ? bytes[position] : 0
    }

    /// curl's `checkprefix`: a case-insensitive ASCII prefix test.
    func hasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { expected in
            for offset in 0..<count
            where CurlByte.lowercased(bytes[index + offset]) != CurlByte.lowercased(expected[offset]) {
                return false
            }
            return true
        }
    }

    mutating func skipSpaces() {
        while CurlByte.isSpace(byte(at: index)) { index += 1 }
    }
}
