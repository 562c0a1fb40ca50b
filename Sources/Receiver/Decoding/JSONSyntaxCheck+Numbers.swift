import FoundationEssentials

extension JSONSyntaxCheck.Reader {
    private enum NumberPart { case operand, decimalPoint, exponent, exponentSign }

    mutating func readNumber() throws(JSONSyntaxCheck.Failure) -> String {
        var part = NumberPart.operand
        var digitsSincePart = 0
        var leadingZero = false
        switch bytes[index] {
        case UInt8(ascii: "0"):
            digitsSincePart = 1
            leadingZero = true
        case UInt8(ascii: "-"):
            break
        default:
            digitsSincePart = 1
        }
        var length = 1
        while let byte = peek(length) {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if leadingZero { throw .leadingZero(index + length) }
                if byte == UInt8(ascii: "0"), digitsSincePart == 0, part == .operand { leadingZero = true }
                length += 1
                digitsSincePart += 1
            case UInt8(ascii: "."):
                guard digitsSincePart > 0, part == .operand else { throw .unexpectedCharacter(index + length) }
                length += 1
                leadingZero = false
                part = .decimalPoint
                digitsSincePart = 0
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard digitsSincePart > 0, part == .operand || part == .decimalPoint else {
                    throw .unexpectedCharacter(index + length)
                }
                length += 1
                leadingZero = false
                part = .exponent
                digitsSincePart = 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard digitsSincePart == 0, part == .exponent else { throw .unexpectedCharacter(index + length) }
                length += 1
                part = .exponentSign
                digitsSincePart = 0
            case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"):
                guard digitsSincePart > 0 else { throw .unexpectedCharacter(index + length) }
                defer { index += length }
                return String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            default:
                throw .unexpectedCharacter(index + length)
            }
        }
        guard digitsSincePart > 0 else { throw .unexpectedEndOfFile }
        defer { index = bytes.count }
        return String(decoding: bytes[index...], as: UTF8.self)
    }
}

extension JSONSyntaxCheck {
    /// Whether JSONSerialization could make an NSNumber of `number` (its `NSNumber.fromJSONNumber`).
    static func isRepresentable(_ number: String) -> Bool {
        let exponentIndex = number.firstIndex(of: "e")
        let isInteger = !number.contains(".") && exponentIndex == nil
        let digitCount = number[..<(exponentIndex ?? number.endIndex)].count
        if isInteger {
            if number.hasPrefix("-") {
                if digitCount <= 19, Int64(number) != nil { return true }
            } else if digitCount <= 20, UInt64(number) != nil {
                return true
            }
        }
        let exponent = exponentIndex.flatMap { Int(number[number.index(after: $0)...]) } ?? 0
        if digitCount > 17, (-128...127).contains(exponent), let decimal = Decimal(string: number), decimal.isFinite {
            return true
        }
        return Double(number)?.isFinite ?? false
    }
}
