/// JSON string literals (RFC 8259), written one way for the engine's
/// `JSONValue`, FormData's base64 JSON body and the files and lines Hoist writes.
public enum JSONString {
    /// What ``write(_:to:)`` escapes: what JSON requires (`"`, `\`, U+0000–001F),
    /// and what is valid raw but unsafe where the text goes next: DEL, the C1
    /// and bidirectional controls, which a terminal acts on when a line is
    /// printed, and U+2028–2029, which end a line in JavaScript before ES2019.
    @inlinable
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\"" || scalar == "\\" || TerminalText.isControl(scalar) || TerminalText.isBidiControl(scalar)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        write(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal: one pass over the string's own
    /// bytes, copying the runs between escapes; most strings need none.
    public static func write(_ text: String, to out: inout [UInt8]) {
        var text = text
        out.append(UInt8(ascii: "\""))
        text.withUTF8 { bytes in
            guard bytes.contains(where: mayNeedEscape) else { return out.append(contentsOf: bytes) }
            var run = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                guard mayNeedEscape(byte) else {
                    index += 1
                    continue
                }
                // The lead bytes that pass the test start sequences of one, two or three bytes.
                let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : 3
                var value = UInt32(byte)
                if length == 2 { value = UInt32(byte & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F) }
                if length == 3 {
                    value =
                        UInt32(byte & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6
                        | UInt32(bytes[index + 2] & 0x3F)
                }
                let scalar = Unicode.Scalar(value)!
                if needsEscape(scalar) {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                    appendEscape(of: scalar, to: &out)
                    run = index + length
                }
                index += length
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The text with JSON string escapes, without the quotes: `"`, `\`, the C0
    /// controls JSON requires, and the other scalars `needsEscape` picks.
    public static func escaped(
        _ text: some StringProtocol, needsEscape: (Unicode.Scalar) -> Bool = JSONString.needsEscape
    ) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" || scalar.value < 0x20 || needsEscape(scalar) {
                appendEscape(of: scalar, to: &out)
            } else {
                out += UTF8.encode(scalar)!
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendEscape(of scalar: Unicode.Scalar, to out: inout [UInt8]) {
        switch scalar {
        case "\"": out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case "\\": out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case "\n": out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case "\r": out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case "\t": out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        default:
            // Beyond the Basic Multilingual Plane: a UTF-16 surrogate pair, as JSON has no longer escape.
            for unit in UTF16.encode(scalar)! { appendHex(unit, to: &out) }
        }
    }

    private static func appendHex(_ unit: UInt16, to out: inout [UInt8]) {
        out += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
        for shift in stride(from: 12, through: 0, by: -4) { out.append(hexDigits[Int(unit >> UInt16(shift) & 15)]) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The bytes that are, or lead, a scalar ``write(_:to:)`` escapes: ASCII
    /// controls, `"`, `\`, DEL, 0xC2 (C1), 0xD8 (ALM) and 0xE2 (U+2000–2FFF).
    @inline(__always)
    private static func mayNeedEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xC2
            || byte == 0xD8 || byte == 0xE2
    }
}
