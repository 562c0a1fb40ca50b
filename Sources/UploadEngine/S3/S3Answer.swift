import Foundation
import XMLCoder

/// What an S3 server's XML answers say, decoded with XMLCoder: the
/// multipart upload's id, the parts it holds, the finished object, or an
/// error by its code.
public enum S3Answer: Sendable, Hashable {
    case created(uploadID: String)
    /// One page of `ListParts`; `nextMarker` is where the next page starts.
    case parts([S3Part], nextMarker: Int?)
    case completed(location: String?, etag: String?)

    /// Decodes the body of a successful answer to `operation`.
    static func decode(_ body: [UInt8], as operation: S3Operation) throws(S3ServerError) -> S3Answer {
        if let reason = unreadable(body) {
            throw S3ServerError(
                status: 200, code: "MalformedAnswer",
                message: "the server's answer to \(operation.rawValue) is not the XML S3 sends: \(reason)")
        }
        do {
            switch operation {
            case .create:
                return .created(uploadID: try decoder.decode(Created.self, from: Data(body)).uploadID)
            case .listParts:
                let page = try decoder.decode(PartsPage.self, from: Data(body))
                let parts = (page.parts ?? []).map {
                    S3Part(number: $0.partNumber, etag: $0.etag, size: $0.size, checksum: $0.checksum)
                }
                return .parts(parts, nextMarker: page.isTruncated == true ? page.nextPartNumberMarker : nil)
            case .complete:
                // A 200 may still carry an <Error>: the server failed after answering began.
                if let error = S3ServerError(status: 200, body: body) { throw error }
                let done = try decoder.decode(Completed.self, from: Data(body))
                return .completed(location: done.location, etag: done.etag)
            }
        } catch let error as S3ServerError {
            throw error
        } catch {
            throw S3ServerError(
                status: 200, code: "MalformedAnswer",
                message: "the server's answer to \(operation.rawValue) is not the XML S3 sends: \(error)")
        }
    }

    /// Why `body` must not reach XMLParser, which on Linux crashes instead of failing on a name that
    /// is not UTF-8 (a trap; swift-corelibs-foundation issue #5534) and on a processing instruction
    /// with no data (`<?a?>`: strlen of NULL). S3 writes UTF-8, with no instruction but the declaration.
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

    /// A decoder per answer: XMLDecoder is a class with settings, not Sendable.
    static var decoder: XMLDecoder {
        let decoder = XMLDecoder()
        decoder.shouldProcessNamespaces = true
        return decoder
    }

    // S3's element names are capitalized: the coding keys say so.
    private struct Created: Decodable {
        var uploadID: String
        enum CodingKeys: String, CodingKey {
            case uploadID = "UploadId"
        }
    }
    private struct PartsPage: Decodable {
        var isTruncated: Bool?
        var nextPartNumberMarker: Int?
        var parts: [ListedPart]?
        enum CodingKeys: String, CodingKey {
            case isTruncated = "IsTruncated"
            case nextPartNumberMarker = "NextPartNumberMarker"
            case parts = "Part"
        }
    }
    private struct ListedPart: Decodable {
        var partNumber: Int
        var etag: String
        var size: Int64
        var checksum: String?
        enum CodingKeys: String, CodingKey {
            case partNumber = "PartNumber"
            case etag = "ETag"
            case size = "Size"
            case checksum = "ChecksumCRC32"
        }
    }
    private struct Completed: Decodable {
        var location: String?
        var etag: String?
        enum CodingKeys: String, CodingKey {
            case location = "Location"
            case etag = "ETag"
        }
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
        guard S3Answer.unreadable(body) == nil, let error = try? S3Answer.decoder.decode(Body.self, from: Data(body)),
            let code = error.code
        else {
            return nil
        }
        self.status = status
        self.code = code
        self.message = error.message ?? ""
        if let request = error.requestTime.flatMap(Self.date), let server = error.serverTime.flatMap(Self.date) {
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

    private struct Body: Decodable {
        var code: String?
        var message: String?
        var requestTime: String?
        var serverTime: String?
        enum CodingKeys: String, CodingKey {
            case code = "Code"
            case message = "Message"
            case requestTime = "RequestTime"
            case serverTime = "ServerTime"
        }
    }

    /// `2026-11-25T21:10:30Z` (S3's `ServerTime`) or `20261125T211030Z` (its echo of `X-Amz-Date`).
    static func date(_ text: String) -> Date? {
        for format in ["yyyy-MM-dd'T'HH:mm:ss'Z'", "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", "yyyyMMdd'T'HHmmss'Z'"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
