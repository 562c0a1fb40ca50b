/// Standard base64 (RFC 4648, with padding): a file streamed inside JSON,
/// `Authorization: Basic`, and tus `Upload-Metadata` values.
public enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encodedLength(_ length: Int64) -> Int64 {
        (length + 2) / 3 * 4
    }

    public static func encode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(encodedLength(Int64(bytes.count))))
        var input = 0
        var output = 0
        while input + 3 <= bytes.count {
            let value = UInt32(bytes[input]) << 16 | UInt32(bytes[input + 1]) << 8 | UInt32(bytes[input + 2])
            out[output] = alphabet[Int(value >> 18 & 63)]
            out[output + 1] = alphabet[Int(value >> 12 & 63)]
            out[output + 2] = alphabet[Int(value >> 6 & 63)]
            out[output + 3] = alphabet[Int(value & 63)]
            input += 3
            output += 4
        }
        let rest = bytes.count - input
        if rest > 0 {
            let value = UInt32(bytes[input]) << 16 | (rest == 2 ? UInt32(bytes[input + 1]) << 8 : 0)
            out[output] = alphabet[Int(value >> 18 & 63)]
            out[output + 1] = alphabet[Int(value >> 12 & 63)]
            out[output + 2] = rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "=")
            out[output + 3] = UInt8(ascii: "=")
        }
        return out
    }

    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { encode($0) }
    }

    /// The bytes `text` encodes, or nil unless it is padded base64 with no
    /// white space or other byte, as Foundation's `Data(base64Encoded:)` reads it.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4 * 3)
        var index = 0
        while index < bytes.count {
            let isLast = index + 4 == bytes.count
            var value: UInt32 = 0
            var padding = 0
            for offset in 0..<4 {
                let byte = bytes[index + offset]
                if byte == UInt8(ascii: "=") {
                    // Only the last one or two characters of the last quantum may be padding.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    value <<= 6
                } else {
                    guard padding == 0, let sextet = sextet(byte) else { return nil }
                    value = value << 6 | UInt32(sextet)
                }
            }
            out.append(UInt8(value >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(value >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(value & 0xFF)) }
            index += 4
        }
        return out
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
