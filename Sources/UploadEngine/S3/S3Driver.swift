import ImagePrep

/// An S3 task's driver (`TransferDriver`): the multipart state machine,
/// which knows the UploadId and the parts the server confirmed (none for a
/// `PutObject`), the keys it signs with and the parts under way. The
/// exchanges are carried out in `UploadEngine+S3`.
final class S3Driver: TransferDriver {
    var machine: S3MultipartStateMachine?
    /// A multipart upload of an earlier run's prepared image, aborted when an attempt has keys.
    var abandoned: S3Checkpoint?
    /// The keys found when the attempt began (never stored in the request).
    var signer: S3Signer?
    /// Bytes written by each part under way, by part number.
    var inFlight: [Int: Int64] = [:]
    /// Checksums of the parts to send next, computed ahead.
    var prepared: [Int: PreparedDigest] = [:]

    var holdsUpload: Bool { machine != nil }

    var extraSlots: Int { max(0, (machine?.partsInFlight ?? 0) - 1) }

    func start(_ id: TaskID, attempt number: Int, on engine: UploadEngine) {
        engine.startS3(id, attempt: number, driver: self)
    }

    func discard(_ record: TaskRecord, on engine: UploadEngine) {
        engine.abortS3(record, driver: self)
    }

    /// Nothing may stay open and billed that no journal knows of.
    func finallyFailed(_ record: TaskRecord, on engine: UploadEngine) -> String? {
        guard machine?.abortion() != nil else { return nil }
        discard(record, on: engine)
        return "the multipart upload was aborted on the server, so none of its parts stays stored"
    }

    func abandon(_ checkpoint: TransferCheckpoint) {
        if let upload = checkpoint.s3 { abandoned = upload }
    }

    func release(
        _ checkpoint: TransferCheckpoint, of request: UploadRequest, on engine: UploadEngine,
        done: @escaping @Sendable (Result<String, Unreleased>) -> Void
    ) {
        engine.releaseS3(checkpoint, request: request, done: done)
    }

    func slotsFreed(_ id: TaskID, attempt number: Int, on engine: UploadEngine) {
        guard machine != nil else { return }
        engine.partSlotsFreed(id, attempt: number)
    }
}

extension TaskRecord {
    /// An S3 task's driver, which `UploadEngine.startTransfer` made.
    var s3: S3Driver { driver as! S3Driver }
}

extension S3Settings: TransferKind {
    public static let kind = "s3"
    static let checkpoints: [any CheckpointState.Type] = [S3Checkpoint.self]

    func makeDriver() -> any TransferDriver { S3Driver() }

    /// A key made of a prefix and the file's name takes the prepared
    /// image's name, and the URL follows it.
    public mutating func carry(_ image: PreparedImage, url: inout String) {
        guard keyIsFileName == true else { return }
        var moved = location
        let prefix = moved.key[
            ..<(moved.key.lastIndex(of: "/").map { moved.key.index(after: $0) } ?? moved.key.startIndex)]
        moved.key = prefix + image.filename
        guard let line = try? endpoint.line("PUT", moved) else { return }
        location = moved
        url = line.url
    }
}

extension S3Checkpoint: CheckpointState {
    public static let name = "s3"
    public var knownLength: Int64? { length }
    public var uploadURL: String { uploadID }
    public var summary: String { "S3 multipart upload \(uploadID), \(parts.count) of \(partCount) parts" }
}

extension Transfer {
    /// An object in S3-compatible storage: the body a `.rawFile`, sent as
    /// one `PutObject` or, from `multipartThreshold` up, a multipart upload.
    public static func s3(_ settings: S3Settings) -> Transfer { Transfer(settings) }

    public var s3: S3Settings? { settings(as: S3Settings.self) }
}

extension TransferCheckpoint {
    public static func s3(_ upload: S3Checkpoint) -> TransferCheckpoint { TransferCheckpoint(upload) }

    public var s3: S3Checkpoint? { state(as: S3Checkpoint.self) }
}
