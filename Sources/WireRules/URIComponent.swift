/// A URI component (a path segment or a query value) as RFC 3986 writes
/// it: every byte but the unreserved ones percent-encoded, `/` too, so a
/// Cloud Storage object's name stays one segment.
public enum URIComponent {
    public static func escaped(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var encoded = String.UnicodeScalarView()
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.append(Unicode.Scalar(byte))
            default:
                encoded.append("%")
                encoded.append(hex[Int(byte >> 4)])
                encoded.append(hex[Int(byte & 0xF)])
            }
        }
        return String(encoded)
    }
}
