import FormData
import UploadEngine
import WireRules

/// A value that cannot be used, in the same words whichever way it came in:
/// a profile key, a command-line option or a row of the UI's `t` dialog.
/// Each front end says where the value came from; this says what is wrong.
public struct TargetValueError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// One validator per kind of value. The profile, the command line and the UI
/// all call these, so they accept and refuse exactly the same values.
public enum TargetValue {
    /// Upper bound for retries: more would hide a broken endpoint for hours.
    public static let maxRetries = 100

    /// An http or https URL the transport can send to.
    public static func url(_ text: String) throws(TargetValueError) -> String {
        if let kind = TargetKinds.claiming(text) {
            try kind.check(text)
            return text
        }
        do {
            return try UploadEngine.validate(url: text)
        } catch {
            throw TargetValueError(error.description)
        }
    }

    /// POST, PUT or PATCH, in any case.
    public static func method(_ text: String) throws(TargetValueError) -> UploadRequest.Method {
        guard let method = UploadRequest.Method(rawValue: text.uppercased()) else {
            let names = UploadRequest.Method.allCases.map(\.rawValue)
            throw TargetValueError("\(quoted(text)) is not an upload method: use \(list(names))")
        }
        return method
    }

    /// One of the body kinds, by the name the UI shows (any case).
    public static func bodyKind(_ text: String) throws(TargetValueError) -> Target.BodyKind {
        guard let kind = Target.BodyKind.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
            throw TargetValueError(
                "\(quoted(text)) is not a body kind: use \(list(Target.BodyKind.allCases.map(\.rawValue)))")
        }
        return kind
    }

    /// A header: an RFC 9110 token for the name, no line break in the value.
    public static func header(name: String, value: String) throws(TargetValueError) -> HeaderField {
        guard HeaderSyntax.isToken(name) else {
            throw TargetValueError(
                "\(quoted(name)) is not a header name: use letters, digits and !#$%&'*+-.^_`|~ only")
        }
        guard !value.utf8.contains(0) else { throw TargetValueError("the value of header \(name) holds a NUL byte") }
        guard !HeaderSyntax.hasForbiddenValueByte(value) else {
            throw TargetValueError("the value of header \(name) holds a line break (CR or LF)")
        }
        return HeaderField(name, value)
    }

    /// A `Name: value` line, as curl's `-H` takes it; spaces around both are trimmed.
    public static func headerLine(_ line: String) throws(TargetValueError) -> HeaderField {
        guard let colon = line.firstIndex(of: ":") else {
            throw TargetValueError("\(quoted(line)) is not a header: expected \"Name: value\"")
        }
        return try header(name: trimmed(line[..<colon]), value: trimmed(line[line.index(after: colon)...]))
    }

    /// A number of seconds above 0, whole or not (`30`, `2.5`), kept to the millisecond.
    public static func seconds(_ value: Double) throws(TargetValueError) -> Duration {
        guard value > 0, value.isFinite, value < 1e9 else {
            throw TargetValueError("\(format(value)) is not a duration: give seconds above 0, e.g. 30 or 2.5")
        }
        return .milliseconds(Int64((value * 1000).rounded(.up)))
    }

    /// `seconds(_:)` for text typed in a form.
    public static func seconds(_ text: String) throws(TargetValueError) -> Duration {
        guard let value = Double(trimmed(text[...])) else {
            throw TargetValueError("\(quoted(text)) is not a duration: give seconds above 0, e.g. 30 or 2.5")
        }
        return try seconds(value)
    }

    /// `30`, `2.5`: a duration as `seconds(_:)` reads it back.
    public static func text(seconds duration: Duration) -> String {
        let (whole, atto) = duration.components
        return atto == 0 ? String(whole) : String(Double(whole) + Double(atto) / 1e18)
    }

    public static func retries(_ value: Int) throws(TargetValueError) -> Int {
        guard (0...maxRetries).contains(value) else {
            throw TargetValueError("\(value) is not a number of retries: give a whole number from 0 to \(maxRetries)")
        }
        return value
    }

    public static func retries(_ text: String) throws(TargetValueError) -> Int {
        guard let value = Int(trimmed(text[...])) else {
            throw TargetValueError(
                "\(quoted(text)) is not a number of retries: give a whole number from 0 to \(maxRetries)")
        }
        return try retries(value)
    }

    public static func concurrency(_ value: Int) throws(TargetValueError) -> Int {
        guard value >= 1 else {
            throw TargetValueError("\(value) is not a number of uploads at once: give a whole number, at least 1")
        }
        return value
    }

    public static func concurrency(_ text: String) throws(TargetValueError) -> Int {
        guard let value = Int(trimmed(text[...])) else {
            throw TargetValueError(
                "\(quoted(text)) is not a number of uploads at once: give a whole number, at least 1")
        }
        return try concurrency(value)
    }

    /// `single` or `tus`, in any case.
    public static func transfer(_ text: String) throws(TargetValueError) -> Target.TransferKind {
        guard let kind = Target.TransferKind(rawValue: trimmed(text[...]).lowercased()) else {
            throw TargetValueError(
                "\(quoted(text)) is not a transfer kind: use \(list(Target.TransferKind.allCases.map(\.rawValue)))")
        }
        return kind
    }

    /// The smallest and largest tus chunk: below 16 KiB the round trips
    /// dominate; above 4 GiB no server takes one request.
    public static let chunkSizes: ClosedRange<Int64> = (16 << 10)...(4 << 30)

    /// `auto`, or a size in bytes: `8M`, `512K`, `8MiB`, `1G` or a number of bytes (binary units).
    public static func chunkSize(_ text: String) throws(TargetValueError) -> TusChunkSize {
        if trimmed(text[...]).lowercased() == "auto" { return .automatic }
        guard let bytes = bytes(text) else {
            throw TargetValueError(
                "\(quoted(text)) is not a chunk size: give auto, bytes, or a number with K, M or G, e.g. 8M")
        }
        return .fixed(try chunkSize(bytes))
    }

    /// An S3 storage class: upper-case letters, digits and `_` (S3's names,
    /// e.g. STANDARD_IA, GLACIER_IR; other servers have their own).
    public static func storageClass(_ text: String) throws(TargetValueError) -> String {
        let name = trimmed(text[...])
        guard !name.isEmpty, name.utf8.allSatisfy({ (65...90).contains($0) || (48...57).contains($0) || $0 == 95 })
        else {
            throw TargetValueError(
                "\(quoted(text)) is not a storage class: e.g. STANDARD, STANDARD_IA, INTELLIGENT_TIERING, GLACIER")
        }
        return name
    }

    /// How S3 checks each part: `crc32` (the default) or `md5`.
    public static func s3Checksum(_ text: String) throws(TargetValueError) -> S3Checksum {
        guard let checksum = S3Checksum(rawValue: trimmed(text[...]).lowercased()) else {
            throw TargetValueError(
                "\(quoted(text)) is not a checksum: use crc32 (x-amz-checksum-crc32) or md5 (Content-MD5)")
        }
        return checksum
    }

    /// S3's canned ACLs.
    public static let cannedACLs = [
        "private", "public-read", "public-read-write", "authenticated-read", "aws-exec-read", "bucket-owner-read",
        "bucket-owner-full-control",
    ]

    public static func acl(_ text: String) throws(TargetValueError) -> String {
        let name = trimmed(text[...]).lowercased()
        guard cannedACLs.contains(name) else {
            throw TargetValueError("\(quoted(text)) is not a canned ACL: use \(list(cannedACLs))")
        }
        return name
    }

    /// An S3 part size, 5M to 5G (S3's limits).
    public static func partSize(_ text: String) throws(TargetValueError) -> Int64 {
        guard let bytes = bytes(text), (S3PartSize.minimum...S3PartSize.maximum).contains(bytes) else {
            throw TargetValueError("\(quoted(text)) is not a part size: give 5M to 5G, e.g. 16M")
        }
        return bytes
    }

    /// A JPEG quality, 1 to 100.
    public static func imageQuality(_ text: String) throws(TargetValueError) -> Int {
        guard let value = Int(trimmed(text[...])), (1...100).contains(value) else {
            throw TargetValueError("\(quoted(text)) is not an image quality: give 1 to 100, e.g. 80")
        }
        return value
    }

    /// The longest side of a prepared image, 16 to 65,535 pixels.
    public static func imageMaxDimension(_ text: String) throws(TargetValueError) -> Int {
        guard let value = Int(trimmed(text[...])), (16...65_535).contains(value) else {
            throw TargetValueError("\(quoted(text)) is not an image size: give 16 to 65535 pixels, e.g. 2048")
        }
        return value
    }

    /// The largest a prepared image may be: 1K or more.
    public static func imageMaxBytes(_ text: String) throws(TargetValueError) -> Int64 {
        guard let value = bytes(text), value >= 1024 else {
            throw TargetValueError("\(quoted(text)) is not a file size: give 1K or more, e.g. 500K or 2M")
        }
        return value
    }

    public static func imageFormat(_ text: String) throws(TargetValueError) -> ImageSettings.Format {
        guard let format = ImageSettings.Format(rawValue: trimmed(text[...]).lowercased()) else {
            throw TargetValueError("\(quoted(text)) is not an image format: give jpeg or keep")
        }
        return format
    }

    /// `8M`, `512K`, `8MiB`, `1G` or a number of bytes (binary units); `nil` when it is none of these.
    static func bytes(_ text: String) -> Int64? {
        let written = trimmed(text[...])
        let digits = written.prefix(while: \.isNumber)
        let unit = written.dropFirst(digits.count).lowercased()
        let shifts: [String: Int64] = ["": 0, "b": 0, "k": 10, "kib": 10, "m": 20, "mib": 20, "g": 30, "gib": 30]
        guard let number = Int64(digits), let shift = shifts[unit], number <= Int64.max >> 30 else { return nil }
        return number << shift
    }

    /// `--read-rate` of `hoist receive` and `hoist demo`: bytes per second,
    /// with K, M, G (binary) as for sizes; `0` is no limit (`nil`).
    public static func readRate(_ text: String) throws(TargetValueError) -> Int? {
        guard let rate = bytes(text), rate <= Int64(Int.max) else {
            throw TargetValueError(
                "\(quoted(text)) is not a rate: give bytes per second, e.g. 40M or 300K; 0 for no limit")
        }
        return rate == 0 ? nil : Int(rate)
    }

    /// `--limit-rate` in curl's syntax: bytes per second, with K, M, G
    /// (binary, any case) and an optional `/s`; `0` is no limit.
    public static func limitRate(_ text: String) throws(TargetValueError) -> Int64 {
        var written = Substring(trimmed(text[...]))
        if written.lowercased().hasSuffix("/s") { written = written.dropLast(2) }
        guard let rate = bytes(String(written)) else {
            throw TargetValueError(
                "\(quoted(text)) is not a rate: give bytes per second with K, M or G, e.g. 500K or 2M; 0 for no limit")
        }
        return rate
    }

    /// `500K`, `2M`: a rate as `limitRate(_:)` reads it back; `0` for none.
    public static func text(rate: Int64) -> String { text(size: rate) }

    /// `auto` or `8M`, as `chunkSize(_:)` reads it back.
    public static func text(chunk: TusChunkSize) -> String {
        switch chunk {
        case .automatic: return "auto"
        case .fixed(let bytes): return text(size: bytes)
        }
    }

    /// `8M`: a size as `chunkSize(_:)` reads it back.
    public static func text(size bytes: Int64) -> String {
        for (unit, shift) in [("G", 30), ("M", 20), ("K", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return String(bytes >> shift) + unit
        }
        return String(bytes)
    }

    public static func chunkSize(_ bytes: Int64) throws(TargetValueError) -> Int64 {
        guard chunkSizes.contains(bytes) else {
            throw TargetValueError("\(bytes) bytes is not a chunk size: give 16K to 4G")
        }
        return bytes
    }

    /// Partial uploads per file, 1 to 16.
    public static func parallelParts(_ value: Int) throws(TargetValueError) -> Int {
        guard (1...16).contains(value) else {
            throw TargetValueError("\(value) is not a number of parallel parts: give a whole number from 1 to 16")
        }
        return value
    }

    public static func parallelParts(_ text: String) throws(TargetValueError) -> Int {
        guard let value = Int(trimmed(text[...])) else {
            throw TargetValueError(
                "\(quoted(text)) is not a number of parallel parts: give a whole number from 1 to 16")
        }
        return try parallelParts(value)
    }

    /// `key.path=value`, e.g. `RETCODE=0000`.
    public static func expectation(_ text: String) throws(TargetValueError) -> SuccessRule.Expectation {
        guard let expectation = SuccessRule.Expectation(parsing: text) else {
            throw TargetValueError("\(quoted(text)) is not an expectation: expected key.path=value")
        }
        return expectation
    }

    /// `true` or `false`, as a profile's TOML and a switch give it.
    public static func boolean(_ text: String) throws(TargetValueError) -> Bool {
        switch trimmed(text[...]).lowercased() {
        case "true": return true
        case "false": return false
        default: throw TargetValueError("\(quoted(text)) is not true or false")
        }
    }

    /// A name such as a region or a profile of ~/.aws: not empty, on one line.
    public static func name(_ text: String) throws(TargetValueError) -> String {
        let name = trimmed(text[...])
        guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw TargetValueError("\(quoted(text)) is not a name: give one word, e.g. eu-central-1")
        }
        return name
    }

    /// A Content-Type header value.
    public static func contentType(_ text: String) throws(TargetValueError) -> String {
        try header(name: "Content-Type", value: trimmed(text[...])).value
    }

    /// The form field files are sent in.
    public static func fieldName(_ text: String) throws(TargetValueError) -> String {
        guard !text.isEmpty else { throw TargetValueError("the form field name is empty") }
        return text
    }

    // MARK: - Wording

    static func quoted(_ text: String) -> String { String(reflecting: text) }

    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }

    static func format(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
