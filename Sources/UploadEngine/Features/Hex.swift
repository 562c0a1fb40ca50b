/// Bytes as lowercase hexadecimal: digests in the history, SigV4's hashes
/// and signatures, an ETag's MD5.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func lowercase<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
