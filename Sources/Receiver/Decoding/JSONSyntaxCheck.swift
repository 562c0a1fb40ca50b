/// Says where a JSON text goes wrong, in the words of swift-corelibs-foundation's `JSONSerialization`
/// (with fragments allowed), which this receiver used to quote and full Foundation no longer is linked.
///
/// JSONDecoder only says "The given data was not valid JSON."; clients that read our 400 answers saw
/// these messages, so the check follows that parser's rules and positions, its quirks included
/// (trailing commas are fine, the last of duplicate keys wins, UTF-16 and UTF-32 are detected).
enum JSONSyntaxCheck {
    /// The problem with `bytes`, or `nil` when JSONSerialization would have read them.
    static func problem(in bytes: [UInt8]) -> String? {
        do throws(Failure) {
            var reader = Reader(bytes: try utf8(bytes))
            try reader.skipWhitespace()
            let value = try reader.parseValue()
            while let next = reader.peek() {
                guard isWhitespace(next) else { throw .unexpectedCharacter(reader.index) }
                reader.index += 1
            }
            if let number = value.unrepresentableNumber { throw .numberNotRepresentable(number) }
            return nil
        } catch {
            return error.message
        }
    }

    enum Failure: Error {
        case cannotConvertToUTF8
        case unexpectedCharacter(Int)
        case unexpectedEndOfFile
        case tooDeep(Int)
        case invalidHex(String, Int)
        case invalidEscape(Int)
        case controlCharacter(Int)
        case expectedLowSurrogate
        case invalidScalar
        case leadingZero(Int)
        case numberNotRepresentable(String)
        case invalidUTF8(count: Int, at: Int)

        var message: String {
            switch self {
            case .cannotConvertToUTF8: "Cannot convert input string to valid utf8 input."
            case .unexpectedCharacter(let index): "Invalid value around character \(index)."
            case .unexpectedEndOfFile: "Unexpected end of file during JSON parse."
            case .tooDeep(let index): "Too many nested arrays or dictionaries around character \(index + 1)."
            case .invalidHex(let hex, let index): "Invalid hex encoded sequence in \"\(hex)\" at \(index)."
            // JSONSerialization reports the backslash, one before the failing byte.
            case .invalidEscape(let index): "Invalid escape sequence around character \(index - 1)."
            case .controlCharacter(let index): "Unescaped control character around character \(index)."
            case .expectedLowSurrogate:
                "Unexpected end of file during string parse (expected low-surrogate code point but did not find one)."
            case .invalidScalar: "Unable to convert hex escape sequence (no high character) to UTF8-encoded character."
            case .leadingZero(let index): "Number with leading zero around character \(index)."
            case .numberNotRepresentable(let number): "Number \(number) is not representable in Swift."
            case .invalidUTF8(let count, let index):
                "Invalid UTF-8 sequence \(count) bytes starting from character \(index)."
            }
        }
    }

    /// What the parse keeps of a value: the first number JSONSerialization could not turn into NSNumber.
    struct Value {
        var unrepresentableNumber: String?
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The text as UTF-8, after a byte order mark or the zero bytes of UTF-16 and UTF-32 tell its encoding.
    private static func utf8(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        let (encoding, skip) = detectEncoding(bytes)
        let body = bytes[skip...]
        switch encoding {
        case .utf8:
            return Array(body)
        case .utf16(let bigEndian):
            var units: [UInt16] = []
            var index = body.startIndex
            while index + 1 < body.endIndex {
                let pair = (UInt16(body[index]), UInt16(body[index + 1]))
                units.append(bigEndian ? pair.0 << 8 | pair.1 : pair.1 << 8 | pair.0)
                index += 2
            }
            // An odd last byte is dropped, as Foundation does.
            guard let text = String(validating: units, as: UTF16.self) else { throw .cannotConvertToUTF8 }
            return Array(text.utf8)
        case .utf32(let bigEndian):
            var scalars = String.UnicodeScalarView()
            var index = body.startIndex
            // Trailing bytes short of a whole unit are dropped, as Foundation does.
            while index + 3 < body.endIndex {
                let word = body[index..<(index + 4)].reduce(0) { $0 << 8 | UInt32($1) }
                let value = bigEndian ? word : word.byteSwapped
                guard let scalar = Unicode.Scalar(value) else { throw .cannotConvertToUTF8 }
                scalars.append(scalar)
                index += 4
            }
            return Array(String(scalars).utf8)
        }
    }

    private enum Encoding {
        case utf8
        case utf16(bigEndian: Bool)
        case utf32(bigEndian: Bool)
    }

    private static func detectEncoding(_ bytes: [UInt8]) -> (Encoding, Int) {
        if bytes.count >= 4 {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
            if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32(bigEndian: true), 4) }
            if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32(bigEndian: false), 4) }
            if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16(bigEndian: false), 2) }
            if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16(bigEndian: true), 2) }
            switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
            case (0, 0, 0, _): return (.utf32(bigEndian: true), 0)
            case (_, 0, 0, 0): return (.utf32(bigEndian: false), 0)
            case (0, _, 0, _): return (.utf16(bigEndian: true), 0)
            case (_, 0, _, 0): return (.utf16(bigEndian: false), 0)
            default: break
            }
        } else if bytes.count >= 2 {
            if bytes[0] == 0 { return (.utf16(bigEndian: true), 0) }
            if bytes[1] == 0 { return (.utf16(bigEndian: false), 0) }
        }
        return (.utf8, 0)
    }

    struct Reader {
        let bytes: [UInt8]
        var index = 0
        var depth = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        mutating func read() -> UInt8? {
            guard index < bytes.count else {
                index = bytes.count
                return nil
            }
            defer { index += 1 }
            return bytes[index]
        }

        /// Skips whitespace; returns the next byte, which must exist.
        @discardableResult
        mutating func skipWhitespace() throws(Failure) -> UInt8 {
            while let byte = peek() {
                guard JSONSyntaxCheck.isWhitespace(byte) else { return byte }
                index += 1
            }
            throw .unexpectedEndOfFile
        }

        mutating func parseValue() throws(Failure) -> Value {
            var whitespace = 0
            while let byte = peek(whitespace) {
                switch byte {
                case UInt8(ascii: "\""):
                    index += whitespace
                    try readString()
                    return Value()
                case UInt8(ascii: "{"):
                    index += whitespace
                    return try parseObject()
                case UInt8(ascii: "["):
                    index += whitespace
                    return try parseArray()
                case UInt8(ascii: "f"), UInt8(ascii: "t"):
                    index += whitespace
                    try readLiteral(byte == UInt8(ascii: "t") ? "true" : "false")
                    return Value()
                case UInt8(ascii: "n"):
                    index += whitespace
                    try readLiteral("null")
                    return Value()
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    index += whitespace
                    let number = try readNumber()
                    return Value(unrepresentableNumber: JSONSyntaxCheck.isRepresentable(number) ? nil : number)
                case 0x20, 0x0A, 0x0D, 0x09:
                    whitespace += 1
                default:
                    throw .unexpectedCharacter(index)
                }
            }
            throw .unexpectedEndOfFile
        }

        mutating func parseArray() throws(Failure) -> Value {
            index += 1
            guard depth < 512 else { throw .tooDeep(index - 1) }
            depth += 1
            defer { depth -= 1 }
            if try skipWhitespace() == UInt8(ascii: "]") {
                index += 1
                return Value()
            }
            var result = Value()
            while true {
                let element = try parseValue()
                result.unrepresentableNumber = result.unrepresentableNumber ?? element.unrepresentableNumber
                let next = try skipWhitespace()
                switch next {
                case UInt8(ascii: "]"):
                    index += 1
                    return result
                case UInt8(ascii: ","):
                    index += 1
                    if try skipWhitespace() == UInt8(ascii: "]") {
                        index += 1
                        return result
                    }
                default:
                    throw .unexpectedCharacter(index)
                }
            }
        }

        mutating func parseObject() throws(Failure) -> Value {
            index += 1
            guard depth < 512 else { throw .tooDeep(index - 1) }
            depth += 1
            defer { depth -= 1 }
            if try skipWhitespace() == UInt8(ascii: "}") {
                index += 1
                return Value()
            }
            // The last value of a key replaces earlier ones, so only theirs count.
            var members: [String: Value] = [:]
            var order: [String] = []
            while true {
                let key = try readString()
                guard try skipWhitespace() == UInt8(ascii: ":") else { throw .unexpectedCharacter(index) }
                index += 1
                try skipWhitespace()
                let member = try parseValue()
                if members.updateValue(member, forKey: key) == nil { order.append(key) }
                let next = try skipWhitespace()
                switch next {
                case UInt8(ascii: "}"):
                    index += 1
                    return Value(
                        unrepresentableNumber: order.lazy.compactMap { members[$0]?.unrepresentableNumber }.first)
                case UInt8(ascii: ","):
                    index += 1
                    if try skipWhitespace() == UInt8(ascii: "}") {
                        index += 1
                        return Value(
                            unrepresentableNumber: order.lazy.compactMap { members[$0]?.unrepresentableNumber }.first)
                    }
                default:
                    throw .unexpectedCharacter(index)
                }
            }
        }

        mutating func readLiteral(_ literal: StaticString) throws(Failure) {
            let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            for byte in expected {
                guard read() == byte else {
                    guard index < bytes.count else { throw .unexpectedEndOfFile }
                    throw .unexpectedCharacter(index - 1)
                }
            }
        }
    }
}
