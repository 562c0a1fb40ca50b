import Crypto
import WireRules

/// MD5 and CRC-32C of an object's bytes so far, updated as they are written, so the final answer needs
/// no second pass over a file of GiBs.
struct GCSDigests {
    private var md5 = Insecure.MD5()
    private var crc = CRC32C()

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        md5.update(bufferPointer: bytes)
        crc.update(bytes)
    }

    /// Base64 of each, as the object resource and `x-goog-hash` carry them.
    var base64: (md5: String, crc32c: String) {
        let md5Bytes = md5.finalize().withUnsafeBytes { Array($0) }
        return (String(decoding: Base64.encode(md5Bytes), as: UTF8.self), crc.base64)
    }
}

/// One resumable upload session: what the initiation said, the bytes held so far, and the object once
/// it is finished (a finished session still answers status queries and a repeated last chunk).
struct GCSSession {
    let id: String
    let bucket: String
    let name: String
    let contentType: String
    /// `X-Upload-Content-Length`, or the first `Content-Range` total; later totals must agree.
    var size: Int64?
    /// Bytes on disk, all counted in ``digests``.
    var persisted: Int64 = 0
    var digests = GCSDigests()
    var object: GCSObject?
}

/// What a session PUT does, decided from its headers before its body is read.
enum GCSPutPlan: Equatable {
    /// Answer the session's state: 308 with the `Range` held, or 200 and the object when finished.
    case status
    /// End the upload with the bytes held (`bytes */TOTAL` where TOTAL is what the receiver has).
    case finish(total: Int64)
    /// Read the body: drop its first `skip` bytes (held already), append the rest. `length` is nil for
    /// a chunked whole-object PUT, whose end is the object's end.
    case write(skip: Int64, length: Int64?, total: Int64?, isFinal: Bool)
}

// The rules of a session PUT, free of I/O (https://cloud.google.com/storage/docs/performing-resumable-uploads).
extension GCSSession {
    /// Non-final chunks must be whole multiples of this.
    static let chunkGranularity: Int64 = 256 * 1024

    func plan(range: GCSContentRange?, contentLength: Int64?, maxSize: Int64?) throws(GCSFailure) -> GCSPutPlan {
        // No Content-Range: the whole object in one request.
        let range = range ?? .bytes(first: 0, last: (contentLength ?? 0) - 1, total: contentLength)
        if let object {
            // Finished: a query, or the last chunk sent again because its answer was lost, gets the object.
            if case .bytes(_, let last, _) = range, last >= object.size {
                throw .invalid("The upload of \(object.name) is finished at \(object.size) bytes")
            }
            return .status
        }
        switch range {
        case .query(let total):
            guard let total else { return .status }
            try checkTotal(total, maxSize: maxSize)
            if total < persisted {
                throw .invalid("Content-Range total \(total) is less than the \(persisted) bytes already uploaded")
            }
            return total == persisted ? .finish(total: total) : .status
        case .bytes(let first, let last, let total):
            if let total { try checkTotal(total, maxSize: maxSize) }
            if let maxSize, last >= maxSize {
                throw GCSFailure(
                    status: 413, message: "The object would be larger than the receiver's limit of \(maxSize) bytes",
                    reason: "uploadTooLarge")
            }
            let length = last - first + 1
            if contentLength == nil && range == .bytes(first: 0, last: -1, total: nil) {
                return .write(skip: persisted, length: nil, total: nil, isFinal: true)
            }
            if let contentLength, contentLength != length {
                throw .invalid(
                    "Content-Range announces \(length) bytes (\(first)-\(last)) but Content-Length is \(contentLength)")
            }
            guard first <= persisted else {
                throw .invalid(
                    "Invalid request. According to the Content-Range header, the upload offset is \(first) byte(s),"
                        + " which exceeds already uploaded size of \(persisted) byte(s).")
            }
            let isFinal = total.map { last + 1 == $0 } ?? false
            if !isFinal && length % Self.chunkGranularity != 0 {
                throw .invalid(
                    "Invalid request. The number of bytes uploaded is required to be a multiple of"
                        + " \(Self.chunkGranularity), except for the final request. The received request contained"
                        + " \(length) bytes, which does not meet this requirement.")
            }
            // Bytes already held are skipped, as Google does; a chunk held whole adds nothing.
            return .write(skip: min(length, persisted - first), length: length, total: total, isFinal: isFinal)
        }
    }

    private func checkTotal(_ total: Int64, maxSize: Int64?) throws(GCSFailure) {
        if let size, size != total {
            throw .invalid("Content-Range total \(total) differs from the object size \(size) given before")
        }
        if let maxSize, total > maxSize {
            throw GCSFailure(
                status: 413, message: "An object of \(total) bytes is larger than the receiver's limit of \(maxSize)",
                reason: "uploadTooLarge")
        }
    }
}
