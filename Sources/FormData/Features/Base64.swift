/// Standard base64 (RFC 4648, with padding), for streaming a file inside JSON.
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
}
