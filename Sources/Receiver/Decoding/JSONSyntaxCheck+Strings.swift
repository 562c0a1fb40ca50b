extension JSONSyntaxCheck.Reader {
    /// The decoded string; failures name the positions JSONSerialization names.
    @discardableResult
    mutating func readString() throws(JSONSyntaxCheck.Failure) -> String {
        guard read() == UInt8(ascii: "\"") else { throw .unexpectedCharacter(index - 1) }
        var segmentStart = index
        var output = ""
        while let byte = peek() {
            switch byte {
            case UInt8(ascii: "\""):
                output += try makeString(segmentStart..<index)
                index += 1
                return output
            case 0...31:
                _ = try makeString(segmentStart..<(index + 1))
                throw .controlCharacter(index)
            case UInt8(ascii: "\\"):
                output += try makeString(segmentStart..<index)
                let escapeStart = index
                do throws(JSONSyntaxCheck.Failure) {
                    output += try readEscape()
                } catch {
                    switch error {
                    case .invalidEscape, .expectedLowSurrogate, .invalidScalar:
                        _ = try makeString(escapeStart..<index)
                    default: break
                    }
                    throw error
                }
                segmentStart = index
            default:
                index += 1
            }
        }
        throw .unexpectedEndOfFile
    }

    func makeString(_ range: Range<Int>) throws(JSONSyntaxCheck.Failure) -> String {
        guard let string = String(validating: bytes[range], as: UTF8.self) else {
            throw .invalidUTF8(count: range.count, at: range.lowerBound)
        }
        return string
    }

    mutating func readEscape() throws(JSONSyntaxCheck.Failure) -> String {
        index += 1  // the backslash
        guard let byte = read() else { throw .unexpectedEndOfFile }
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): return String(try readUnicodeEscape())
        default: throw .invalidEscape(index - 1)
        }
    }

    mutating func readUnicodeEscape() throws(JSONSyntaxCheck.Failure) -> Unicode.Scalar {
        let high = try readHex()
        if high & 0xFC00 == 0xD800 {
            guard let backslash = read(), let u = read() else { throw .unexpectedEndOfFile }
            guard backslash == UInt8(ascii: "\\"), u == UInt8(ascii: "u") else { throw .expectedLowSurrogate }
            let low = try readHex()
            guard low & 0xFC00 == 0xDC00 else { throw .expectedLowSurrogate }
            let value = (UInt32(high - 0xD800) << 10) + UInt32(low - 0xDC00) + 0x10000
            guard let scalar = Unicode.Scalar(value) else { throw .invalidScalar }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw .invalidScalar }
        return scalar
    }

    mutating func readHex() throws(JSONSyntaxCheck.Failure) -> UInt16 {
        let start = index
        guard let a = read(), let b = read(), let c = read(), let d = read() else { throw .unexpectedEndOfFile }
        var value: UInt16 = 0
        for byte in [a, b, c, d] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: throw .invalidHex(String(decoding: [a, b, c, d], as: UTF8.self), start)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
