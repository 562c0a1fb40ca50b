/// An S3 task's driver (`TransferDriver`): the multipart state machine,
/// which knows the UploadId and the parts the server confirmed (none for a
/// `PutObject`), the keys it signs with and the parts under way. The
/// exchanges are carried out in `UploadEngine+S3`.
final class S3Driver: TransferDriver {
    var machine: S3MultipartStateMachine?
    /// A multipart upload of an earlier run's prepared image, aborted when an attempt has keys.
    var abandoned: S3Checkpoint?
    /// The keys found when the attempt began (never stored in the request).
    var signer: SigV4?
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
        if case .s3(let upload) = checkpoint { abandoned = upload }
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
