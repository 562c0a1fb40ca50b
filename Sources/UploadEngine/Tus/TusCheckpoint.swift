import FormData

/// Partial uploads of one file: which bytes each carries, how far each got,
/// and the final upload once the server joined them.
public struct TusPartsCheckpoint: Sendable, Hashable, Codable {
    public var ranges: [Range<Int64>]
    /// `nil` for a part not created yet.
    public var parts: [TusCheckpoint?]
    public var finalURL: String?

    public init(ranges: [Range<Int64>], parts: [TusCheckpoint?], finalURL: String? = nil) {
        self.ranges = ranges
        self.parts = parts
        self.finalURL = finalURL
    }
}

/// A tus upload the server created.
public struct TusCheckpoint: Sendable, Hashable, Codable {
    /// Absolute (a relative `Location` is resolved against the creation URL).
    public var uploadURL: String
    /// The server's offset, as it last confirmed it.
    public var offset: Int64
    /// `Upload-Length`; `deferredLength` while a stream has not ended.
    public var length: Int64
    /// The file when the upload was created: bytes from a file that differs
    /// are never appended to it. `nil` for standard input.
    public var file: FileSnapshot?

    public static let deferredLength: Int64 = -1

    /// `length`, unless it is still deferred.
    public var knownLength: Int64? { length == Self.deferredLength ? nil : length }

    public var isComplete: Bool { knownLength.map { offset >= $0 } ?? false }

    public init(uploadURL: String, offset: Int64, length: Int64, file: FileSnapshot?) {
        self.uploadURL = uploadURL
        self.offset = offset
        self.length = length
        self.file = file
    }
}

extension TusCheckpoint: CheckpointState {
    public static let name = "tus"
    public var summary: String { "tus upload " + Secrets.displayURL(uploadURL) }
}

extension TusPartsCheckpoint: CheckpointState {
    public static let name = "tusParts"

    public var offset: Int64 { parts.reduce(0) { $0 + ($1?.offset ?? 0) } }
    public var knownLength: Int64? { ranges.last?.upperBound }
    /// The final upload's URL once the parts are joined, before that the first part's.
    public var uploadURL: String { finalURL ?? parts.lazy.compactMap { $0?.uploadURL }.first ?? "" }
    public var summary: String { "tus upload " + Secrets.displayURL(uploadURL) }
}

extension TransferCheckpoint {
    public static func tus(_ upload: TusCheckpoint) -> TransferCheckpoint { TransferCheckpoint(upload) }
    public static func tusParts(_ parts: TusPartsCheckpoint) -> TransferCheckpoint { TransferCheckpoint(parts) }

    public var tus: TusCheckpoint? { state(as: TusCheckpoint.self) }
    public var tusParts: TusPartsCheckpoint? { state(as: TusPartsCheckpoint.self) }
}
