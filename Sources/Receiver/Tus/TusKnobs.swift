/// Failure paths of the tus endpoint, for testing clients. Server-wide, counting tus requests in order of
/// arrival; every knob is off by default.
public struct TusKnobs: Sendable, Equatable {
    /// The first N PATCHes get 409 with the current `Upload-Offset`, even when their offset is right.
    /// Their body is not read.
    public var conflictFirst: Int = 0
    /// The first N PATCHes that carry `Upload-Checksum` get 460 whatever their digest; the chunk is discarded.
    public var checksumFailFirst: Int = 0
    /// A PATCH or creation body larger than this gets 413, before a byte of it is read when it has a
    /// `Content-Length` (a chunked one once it passes the size; nothing of it is kept).
    public var maxChunk: Int? = nil
    /// The first N PATCHes have their TCP connection reset (no answer) ...
    public var resetPatchFirst: Int = 0
    /// ... once this many body bytes were written (or at the end of a smaller body). Unlike the server-wide
    /// `resetFirst`, the bytes are kept and the offset advances: that is what a client resumes from.
    /// A PATCH with `Upload-Checksum` keeps nothing, as its bytes cannot be verified.
    public var resetPatchAfterBytes: Int64 = 0
    /// After each of the first N PATCHes that leave their upload unfinished, the upload is forgotten (its
    /// bytes removed), as if it expired: the client got its 204, and its next HEAD or PATCH gets 404.
    public var expireFirst: Int = 0

    public init() {}
}

/// One request the tus endpoint handled, as ``Receiver/tusRequests()`` lists it.
public struct TusRequestRecord: Sendable, Equatable {
    public var method: String
    /// URL path, without the query.
    public var path: String
    /// The upload addressed (or created); nil for OPTIONS and refused creations.
    public var uploadID: String?
    /// The request's `Upload-Offset` header, when it had a valid one.
    public var uploadOffset: Int64?
    /// Body bytes received from the client (read off the wire, kept or not).
    public var bodyBytes: Int64
    /// Status answered; 0 when the connection was reset or the client went away.
    public var status: Int
    /// The upload's offset once the request was done.
    public var offsetAfter: Int64?
    /// Body bytes this request added to the upload (after a reset too; none after a 460).
    public var keptBytes: Int64
    /// Set on the request that completed an upload: the file's name in the receiver's directory.
    public var savedAs: String?

    public init(
        method: String, path: String, uploadID: String? = nil, uploadOffset: Int64? = nil, bodyBytes: Int64 = 0,
        status: Int, offsetAfter: Int64? = nil, keptBytes: Int64 = 0, savedAs: String? = nil
    ) {
        self.method = method
        self.path = path
        self.uploadID = uploadID
        self.uploadOffset = uploadOffset
        self.bodyBytes = bodyBytes
        self.status = status
        self.offsetAfter = offsetAfter
        self.keptBytes = keptBytes
        self.savedAs = savedAs
    }

    /// The bytes of the upload this request wrote, e.g. `100000..<250000`; nil when it kept none. Across
    /// one upload's requests these never overlap unless a client sent bytes twice.
    public var keptRange: Range<Int64>? {
        guard keptBytes > 0, let offsetAfter else { return nil }
        return offsetAfter - keptBytes..<offsetAfter
    }
}
