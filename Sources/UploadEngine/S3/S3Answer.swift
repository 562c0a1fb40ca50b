import FoundationEssentials
import Glibc

/// What an S3 server's XML answers say (read with ``S3XML``): the
/// multipart upload's id, the parts it holds, the finished object, or an
/// error by its code.
public enum S3Answer: Sendable, Hashable {
    case created(uploadID: String)
    /// One page of `ListParts`; `nextMarker` is where the next page starts.
    case parts([S3Part], nextMarker: Int?)
    case completed(location: String?, etag: String?)

    /// Decodes the body of a successful answer to `operation`.
    static func decode(_ body: [UInt8], as operation: S3Operation) throws(S3ServerError) -> S3Answer {
        func malformed(_ reason: String) -> S3ServerError {
            S3ServerError(
                status: 200, code: "MalformedAnswer",
                message: "the server's answer to \(operation.rawValue) is not the XML S3 sends: \(reason)")
        }
        if let reason = unreadable(body) { throw malformed(reason) }
        let root: S3XML
        do { root = try S3XML.parse(body) } catch { throw malformed(error.description) }
        switch operation {
        case .create:
            guard let uploadID = root.value("UploadId") else { throw malformed("it has no <UploadId>") }
            return .created(uploadID: uploadID)
        case .listParts:
            var parts: [S3Part] = []
            for part in root.all("Part") {
                guard let number = part.value("PartNumber").flatMap({ Int($0) }),
                    let etag = part.value("ETag"),
                    let size = part.value("Size").flatMap({ Int64($0) })
                else { throw malformed("a <Part> lacks its PartNumber, ETag or Size") }
                parts.append(S3Part(number: number, etag: etag, size: size, checksum: part.value("ChecksumCRC32")))
            }
            let truncated = root.value("IsTruncated") == "true"
            return .parts(parts, nextMarker: truncated ? root.value("NextPartNumberMarker").flatMap { Int($0) } : nil)
        case .complete:
            // A 200 may still carry an <Error>: the server failed after answering began.
            if let error = S3ServerError(status: 200, body: body) { throw error }
            return .completed(location: root.value("Location"), etag: root.value("ETag"))
        }
    }

    /// Why `body` is refused before it is parsed: S3 writes UTF-8, with no
    /// processing instruction but the declaration. (FoundationXML, which
    /// read these answers before, crashed on both: a trap on a name that is
    /// not UTF-8, strlen of NULL on `<?a?>`; the fuzz tests keep them.)
    static func unreadable(_ body: [UInt8]) -> String? {
        guard String(validating: body, as: UTF8.self) != nil else { return "it is not UTF-8" }
        var start = body.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[start]) { start += 1 }
        let declaration = Array("<?xml".utf8)
        for index in body.indices.dropLast() where body[index] == UInt8(ascii: "<") && body[index + 1] == 0x3F {
            let isDeclaration =
                index == start && body[index...].starts(with: declaration) && body.count > index + 5
                && [0x20, 0x09, 0x0A, 0x0D].contains(body[index + 5])
            if !isDeclaration { return "it holds a processing instruction ('<?')" }
        }
        return nil
    }
}

/// The operations whose answers carry XML worth reading.
public enum S3Operation: String, Sendable, Hashable {
    case create = "CreateMultipartUpload"
    case listParts = "ListParts"
    case complete = "CompleteMultipartUpload"
}

/// A part the server holds: its number, ETag (quoted, as S3 sends it),
/// size, and CRC32 (base64) when the upload has checksums.
public struct S3Part: Sendable, Hashable, Codable {
    public var number: Int
    public var etag: String
    public var size: Int64
    public var checksum: String?

    public init(number: Int, etag: String, size: Int64, checksum: String? = nil) {
        self.checksum = checksum
        self.number = number
        self.etag = etag
        self.size = size
    }

    /// An ETag without its quotes (servers differ in whether they send them).
    static func unquoted(_ etag: String) -> String {
        etag.trimmingCharacters(in: "\" ")
    }

    static func sameETag(_ a: String, _ b: String) -> Bool {
        unquoted(a).lowercased() == unquoted(b).lowercased()
    }
}

/// An S3 error answer: `<Error><Code>…</Code><Message>…</Message></Error>`.
public struct S3ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// For `RequestTimeTooSkewed`: the server's clock minus the request's, in seconds.
    public var skew: TimeInterval?

    public init(status: Int, code: String, message: String, skew: TimeInterval? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.skew = skew
    }

    /// The error an answer's body holds, or `nil` when it holds none
    /// (a HEAD answer has no body: its status alone is named).
    public init?(status: Int, body: [UInt8]) {
        guard S3Answer.unreadable(body) == nil, let error = try? S3XML.parse(body), let code = error.value("Code")
        else {
            return nil
        }
        self.status = status
        self.code = code
        self.message = error.value("Message") ?? ""
        if let request = error.value("RequestTime").flatMap(Self.date),
            let server = error.value("ServerTime").flatMap(Self.date)
        {
            skew = server.timeIntervalSince(request)
        }
    }

    /// `SlowDown`, `InternalError` and 5xx go again after a pause; the rest
    /// (a wrong key, a missing bucket) would fail the same way again.
    public var isRetryable: Bool {
        status >= 500 || ["SlowDown", "InternalError", "RequestTimeout", "ServiceUnavailable"].contains(code)
    }

    public var description: String {
        var text = "\(code): \(message.isEmpty ? "HTTP \(status)" : message)"
        if let skew {
            let seconds = Int(skew.rounded())
            text += " (the server's clock is \(abs(seconds)) s \(seconds >= 0 ? "ahead of" : "behind") this machine's)"
        }
        return text
    }

    /// `2026-11-25T21:10:30Z` (S3's `ServerTime`, perhaps with milliseconds)
    /// or `20261125T211030Z` (its echo of `X-Amz-Date`), always UTC.
    static func date(_ text: String) -> Date? {
        let compact = !text.contains("-")
        let layout: [(digits: Int, then: UInt8?)] =
            compact
            ? [(4, nil), (2, nil), (2, UInt8(ascii: "T")), (2, nil), (2, nil), (2, nil)]
            : [(4, 0x2D), (2, 0x2D), (2, UInt8(ascii: "T")), (2, 0x3A), (2, 0x3A), (2, nil)]
        var rest = Array(text.utf8)[...]
        func number(_ count: Int) -> Int? {
            let digits = rest.prefix(count)
            guard digits.count == count, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            rest = rest.dropFirst(count)
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        func literal(_ byte: UInt8) -> Bool {
            guard rest.first == byte else { return false }
            rest = rest.dropFirst()
            return true
        }
        var fields: [Int] = []
        for (count, separator) in layout {
            guard let value = number(count), separator.map(literal) ?? true else { return nil }
            fields.append(value)
        }
        var milliseconds = 0
        if !compact, literal(UInt8(ascii: ".")) {
            guard let value = number(3) else { return nil }
            milliseconds = value
        }
        guard literal(UInt8(ascii: "Z")), rest.isEmpty, (1...12).contains(fields[1]), (1...31).contains(fields[2]),
            fields[3] < 24, fields[4] < 60, fields[5] < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(fields[0] - 1900)
        parts.tm_mon = Int32(fields[1] - 1)
        parts.tm_mday = Int32(fields[2])
        parts.tm_hour = Int32(fields[3])
        parts.tm_min = Int32(fields[4])
        parts.tm_sec = Int32(fields[5])
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)) + TimeInterval(milliseconds) / 1000)
    }
}
