/// Percent-decoding for URL queries, urlencoded bodies and RFC 5987 values.
enum PercentDecoding {
    /// Decoded bytes, or `nil` when a `%` is not followed by two hex digits.
    static func decode(_ text: some StringProtocol, plusAsSpace: Bool) -> [UInt8]? {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { return nil }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return output
    }

    /// Decoded text; a malformed escape is kept literally instead of failing.
    static func decodeString(_ text: some StringProtocol, plusAsSpace: Bool) -> String {
        if let bytes = decode(text, plusAsSpace: plusAsSpace) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return plusAsSpace ? String(text.map { $0 == "+" ? " " : $0 }) : String(text)
    }

    /// `a=1&b=x+y` as ordered pairs (`application/x-www-form-urlencoded` rules when `plusAsSpace`).
    static func pairs(_ text: some StringProtocol, plusAsSpace: Bool) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeString(pieces[0], plusAsSpace: plusAsSpace)
            let value = pieces.count > 1 ? decodeString(pieces[1], plusAsSpace: plusAsSpace) : ""
            return (name: name, value: value)
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
