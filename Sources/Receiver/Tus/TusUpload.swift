import FoundationEssentials
import WireRules

/// One tus upload as the receiver keeps it: in memory, and as a JSON file beside its bytes so it outlives
/// a restart. The offset is not in the JSON: it is the size of the bytes on disk.
struct TusUpload: Codable, Equatable {
    enum Concat: Codable, Equatable {
        /// Created with `Upload-Concat: partial`: a piece of a later final upload, never saved on its own.
        case partial
        /// Created with `Upload-Concat: final;...`: these partial uploads, in order.
        case final([String])
    }

    var id: String
    /// nil while the length is deferred (`Upload-Defer-Length: 1`).
    var length: Int64?
    var metadata: TusMetadata
    var concat: Concat?
    /// Set once the upload is complete and its file is in the receiver's directory.
    var savedAs: String?
    /// When an unfinished upload is forgotten (the expiration extension); nil: never.
    var expires: Date?
    var offset: Int64 = 0

    private enum CodingKeys: String, CodingKey {
        case id, length, metadata, concat, savedAs, expires
    }

    init(id: String, length: Int64?, metadata: TusMetadata, concat: Concat? = nil) {
        self.id = id
        self.length = length
        self.metadata = metadata
        self.concat = concat
    }

    var isComplete: Bool { length == offset }
    var isPartial: Bool { concat == .partial }

    /// A complete upload never expires; it is saved.
    func isExpired(at now: Date) -> Bool {
        guard let expires, !isComplete else { return false }
        return expires <= now
    }

    /// `Upload-Expires` in the HTTP date format, e.g. `Wed, 25 Nov 2026 18:00:00 GMT`.
    var expiresHeader: String? {
        guard let expires, !isComplete else { return nil }
        return HTTPDate.format(secondsSince1970: Int64(expires.timeIntervalSince1970.rounded(.down)))
    }
}

/// What a PATCH may do once its headers were checked against the upload.
struct TusPatchPlan: Equatable {
    /// The length the upload has after this PATCH's headers (a deferred length may be set by them).
    var length: Int64?
    /// Whether this PATCH sets the length of a deferred upload, which must then be saved.
    var setsLength: Bool
    /// At most this many body bytes fit (what is left of the length, or of the size limit); nil: no bound.
    var room: Int64?
}

// The rules of tus 1.0 on an upload's state, free of I/O.
extension TusUpload {
    /// Checks a PATCH's `Upload-Offset`, `Upload-Length` and `Content-Length` against the upload.
    func plan(
        patchOffset: Int64?, declaredLength: Int64?, contentLength: Int64?, maxSize: Int64?
    ) throws(TusFailure) -> TusPatchPlan {
        if case .final = concat {
            throw TusFailure(status: 403, message: "\(id) is a final (concatenated) upload: it takes no PATCH")
        }
        guard let patchOffset else {
            throw .badRequest("PATCH needs Upload-Offset: the offset the body starts at (HEAD tells it)")
        }
        guard patchOffset == offset else {
            throw .conflict("Upload-Offset \(patchOffset) is not the upload's offset \(offset)", offset: offset)
        }
        var length = self.length
        var setsLength = false
        if let declaredLength {
            if let known = length, known != declaredLength {
                throw .badRequest("Upload-Length \(declaredLength) differs from the upload's length \(known)")
            }
            if length == nil {
                guard declaredLength >= offset else {
                    throw .badRequest("Upload-Length \(declaredLength) is less than the \(offset) bytes received")
                }
                if let maxSize, declaredLength > maxSize {
                    throw .tooLarge("Upload-Length \(declaredLength) is larger than Tus-Max-Size \(maxSize)")
                }
                length = declaredLength
                setsLength = true
            }
        }
        let room = length.map { $0 - offset } ?? maxSize.map { max(0, $0 - offset) }
        if let room, let contentLength, contentLength > room {
            throw .tooLarge(
                "a body of \(contentLength) bytes at offset \(offset) goes past "
                    + (length.map { "the upload's length \($0)" } ?? "Tus-Max-Size \(maxSize ?? 0)"))
        }
        return TusPatchPlan(length: length, setsLength: setsLength, room: room)
    }

    /// The length of a final upload made of `parts`, which must all be complete partial uploads.
    static func concatenatedLength(of parts: [TusUpload], maxSize: Int64?) throws(TusFailure) -> Int64 {
        guard !parts.isEmpty else { throw .badRequest("Upload-Concat: final; names no partial upload") }
        var total: Int64 = 0
        for part in parts {
            guard part.isPartial else {
                throw .badRequest("\(part.id) was not created with Upload-Concat: partial, so it cannot be joined")
            }
            guard part.isComplete, let length = part.length else {
                throw .badRequest(
                    "partial upload \(part.id) has \(part.offset) of \(part.length.map(String.init) ?? "?") bytes:"
                        + " finish it before the final POST")
            }
            total += length
        }
        if let maxSize, total > maxSize {
            throw .tooLarge("the parts add up to \(total) bytes, more than Tus-Max-Size \(maxSize)")
        }
        return total
    }
}
