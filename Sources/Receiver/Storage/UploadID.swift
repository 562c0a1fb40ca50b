/// The IDs the receiver gives resumable uploads (tus uploads, GCS
/// sessions): 32 lowercase hex digits, so one taken from a URL never
/// reaches the file system as anything else.
enum UploadID {
    static func isValid(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
