/// The bytes curl's form grammar gives a meaning to, and its byte-level helpers.
enum CurlByte {
    static let equals = UInt8(ascii: "=")
    static let semicolon = UInt8(ascii: ";")
    static let comma = UInt8(ascii: ",")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let colon = UInt8(ascii: ":")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let hash = UInt8(ascii: "#")
    static let at = UInt8(ascii: "@")
    static let lessThan = UInt8(ascii: "<")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")

    /// curl's `ISSPACE`: space, tab, LF, VT, FF, CR.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == space || (0x09...0x0D).contains(byte)
    }

    static func trimmedTrailingSpaces(_ bytes: [UInt8]) -> [UInt8] {
        var end = bytes.count
        while end > 0, isSpace(bytes[end - 1]) { end -= 1 }
        return Array(bytes[..<end])
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
