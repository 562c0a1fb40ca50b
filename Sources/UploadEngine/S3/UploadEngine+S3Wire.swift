import Crypto
import FormData
import FoundationEssentials
import WireRules

/// S3 on the wire: the request each exchange of the multipart driver is
/// (line, headers, body, before signing), and what each answer means to
/// it (XML decoded, ETags and checksums compared with what was sent).
extension UploadEngine {
    /// The server's clock minus the signing time, when the server refused
    /// the request as signed too far from its clock: from the error's
    /// `ServerTime` and `RequestTime`, else from its `Date` header.
    static func clockSkew(_ outcome: HTTPTransport.Outcome, signedAt: Date) -> TimeInterval? {
        guard case .success(let response) = outcome.result, response.status == 403,
            let error = S3ServerError(status: response.status, body: response.body),
            error.code == "RequestTimeTooSkewed"
        else { return nil }
        if let skew = error.skew { return skew }
        return response.headers.value(of: "Date").flatMap { HTTPDate.parse($0) }.map {
            TimeInterval($0) - signedAt.timeIntervalSince1970
        }
    }

    /// The headers that carry a payload's checksum (for CRC32, with the
    /// algorithm named as AWS's SDKs name it).
    static func checksumHeaders(_ algorithm: S3Checksum, _ value: String) -> [HeaderField] {
        switch algorithm {
        case .crc32:
            return [HeaderField("x-amz-sdk-checksum-algorithm", "CRC32"), HeaderField("x-amz-checksum-crc32", value)]
        case .md5:
            return [HeaderField("Content-MD5", value)]
        }
    }

    /// Why the server's answer does not confirm the bytes sent, if it does
    /// not: an MD5 ETag or a returned CRC32 that differs from ours.
    static func checksumMismatch(
        _ response: UploadResponse, _ algorithm: S3Checksum, sent: String, part: Int?
    ) -> String? {
        let what = part.map { "part \($0)" } ?? "the object"
        switch algorithm {
        case .md5:
            return etagMismatch(response, md5: sent, part: part)
        case .crc32:
            guard let returned = response.headers.value(of: "x-amz-checksum-crc32"), returned != sent else {
                return nil
            }
            return "the server's CRC32 for \(what) (\(returned)) is not that of the bytes sent (\(sent))"
        }
    }

    /// The request's headers with the object's `Content-Type` (the file's,
    /// else `application/octet-stream`): for PutObject and CreateMultipartUpload.
    static func objectHeaders(_ request: UploadRequest) -> [HeaderField] {
        var type = "application/octet-stream"
        if case .rawFile(_, let given?) = request.body { type = given }
        return request.headers.filter { $0.name.lowercased() != "content-type" } + [HeaderField("Content-Type", type)]
    }

    /// The request line, headers (unsigned yet) and body of an exchange.
    func s3Request(
        _ exchange: S3MultipartStateMachine.Exchange, settings: S3Settings, request: UploadRequest
    ) throws(S3ConfigurationError) -> (S3RequestLine, [HeaderField], RequestBody?) {
        let object = settings.location
        switch exchange {
        case .create:
            var headers = Self.objectHeaders(request)
            if settings.checksumAlgorithm == .crc32 { headers.append(HeaderField("x-amz-checksum-algorithm", "CRC32")) }
            return (try settings.endpoint.line("POST", object, query: [("uploads", nil)]), headers, nil)
        case .uploadPart(let uploadID, let number, _):
            return (
                try settings.endpoint.line(
                    "PUT", object, query: [("partNumber", String(number)), ("uploadId", uploadID)]),
                [], nil
            )
        case .listParts(let uploadID, let marker):
            var query: [(String, String?)] = [("uploadId", uploadID)]
            if let marker { query.append(("part-number-marker", String(marker))) }
            return (try settings.endpoint.line("GET", object, query: query), [], nil)
        case .complete(let uploadID, let parts):
            let xml =
                "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                + parts.map {
                    "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(Self.xmlEscaped($0.etag))</ETag>"
                        + ($0.checksum.map { "<ChecksumCRC32>\(Self.xmlEscaped($0))</ChecksumCRC32>" } ?? "")
                        + "</Part>"
                }
                .joined() + "</CompleteMultipartUpload>"
            let bytes = Array(xml.utf8)
            return (
                try settings.endpoint.line("POST", object, query: [("uploadId", uploadID)]),
                [
                    HeaderField("Content-Type", "application/xml"),
                    HeaderField("Content-MD5", Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()),
                ],
                RequestBody(contentType: "application/xml", segments: [.bytes(bytes)])
            )
        case .abort(let uploadID):
            return (try settings.endpoint.line("DELETE", object, query: [("uploadId", uploadID)]), [], nil)
        case .headObject:
            return (try settings.endpoint.line("HEAD", object), [], nil)
        }
    }

    static func event(
        for exchange: S3MultipartStateMachine.Exchange, response: UploadResponse, checksum: (S3Checksum, String)?
    ) -> S3MultipartStateMachine.Event {
        do {
            switch exchange {
            case .create:
                guard case .created(let uploadID) = try S3Answer.decode(response.body, as: .create) else { break }
                return .created(uploadID: uploadID)
            case .uploadPart(let uploadID, let number, _):
                let (algorithm, sent) = checksum ?? (.md5, "")
                if let mismatch = checksumMismatch(response, algorithm, sent: sent, part: number) {
                    return .failed(exchange, .transport(.protocolError(mismatch)))
                }
                guard let etag = response.headers.value(of: "ETag") else {
                    return .failed(
                        exchange, .transport(.protocolError("the server's answer to part \(number) has no ETag")))
                }
                return .partSent(
                    uploadID: uploadID, number: number, etag: etag, checksum: algorithm == .crc32 ? sent : nil)
            case .listParts(let uploadID, _):
                guard case .parts(let parts, let next) = try S3Answer.decode(response.body, as: .listParts) else {
                    break
                }
                return .listed(uploadID: uploadID, parts, nextMarker: next)
            case .complete(let uploadID, _):
                _ = try S3Answer.decode(response.body, as: .complete)
                return .completed(uploadID: uploadID)
            case .headObject:
                let size = response.headers.value(of: "Content-Length").flatMap { Int64($0) } ?? -1
                return .objectFound(size: size, etag: response.headers.value(of: "ETag"))
            case .abort:
                break
            }
        } catch {
            return .failed(exchange, .server(error))
        }
        return .failed(exchange, .transport(.other("s3: an unexpected answer")))
    }

    static func fault(_ response: UploadResponse) -> S3MultipartStateMachine.S3Fault {
        S3ServerError(status: response.status, body: response.body).map { .server($0) }
            ?? .transport(.httpStatus(response.status, message: nil))
    }

    static func failure(_ response: UploadResponse) -> UploadFailure {
        guard let error = S3ServerError(status: response.status, body: response.body) else {
            return .httpStatus(response.status, message: nil)
        }
        return .httpStatus(response.status, message: error.description)
    }

    /// An ETag of 32 hex digits is the MD5 of the bytes the server stored
    /// (on AWS unless the object is encrypted with KMS): it must be ours.
    static func etagMismatch(_ response: UploadResponse, md5 base64: String, part: Int?) -> String? {
        guard let etag = response.headers.value(of: "ETag")?.trimmingCharacters(in: "\" "),
            etag.count == 32, etag.allSatisfy(\.isHexDigit), let sent = Data(base64Encoded: base64)
        else { return nil }
        let expected = Hex.lowercase(sent)
        guard etag.lowercased() != expected else { return nil }
        let what = part.map { "part \($0)" } ?? "the object"
        return "the server's ETag for \(what) (\(etag)) is not the MD5 of the bytes sent (\(expected))"
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
