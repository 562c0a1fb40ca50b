import FormData

/// A resumable session GCS opened: where it is, and the bytes it said it holds.
public struct GCSCheckpoint: Sendable, Hashable, Codable {
    /// The session URI from the `Location` of the session's `POST`.
    public var sessionURL: String
    /// Bytes the server holds, as its last `308` said.
    public var offset: Int64
    public var length: Int64
    /// The file when the session began: bytes of a file that differs are never appended.
    public var file: FileSnapshot?

    public init(sessionURL: String, offset: Int64, length: Int64, file: FileSnapshot?) {
        self.sessionURL = sessionURL
        self.offset = offset
        self.length = length
        self.file = file
    }
}

extension GCSCheckpoint: CheckpointState {
    public static let name = "gcs"
    public var knownLength: Int64? { length }
    public var uploadURL: String { sessionURL }
    public var summary: String { "GCS upload session " + Secrets.displayURL(sessionURL) }
}

extension TransferCheckpoint {
    public var gcs: GCSCheckpoint? { state(as: GCSCheckpoint.self) }
}
