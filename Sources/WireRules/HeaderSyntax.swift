/// What an HTTP header may hold (RFC 9110): a name is a token, a value
/// holds no CR, LF or NUL, which would end the line or the string early.
public enum HeaderSyntax {
    /// RFC 9110 `tchar`: a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    @inlinable
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A header name: one or more `tchar`s. Non-ASCII text never is one.
    public static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// CR, LF or NUL: RFC 9110 §5.5 says a recipient must refuse them in a value,
    /// and here they would split one header into two.
    @inlinable
    public static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        byte == 0x0D || byte == 0x0A || byte == 0x00
    }

    /// Whether `text` holds a CR, LF or NUL.
    public static func hasForbiddenValueByte(_ text: some StringProtocol) -> Bool {
        text.utf8.contains(where: isForbiddenInValue)
    }
}
