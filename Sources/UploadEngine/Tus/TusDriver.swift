/// A tus task's driver (`TransferDriver`): its state machine, which knows
/// the upload URL and the server's offset, and the chunks under way. The
/// exchanges are carried out in `UploadEngine+Tus`.
final class TusDriver: TransferDriver {
    var machine: TusTransferStateMachine?
    /// Bytes written by each lane's exchange under way, not yet confirmed.
    var inFlight: [Int: Int64] = [:]
    /// Each lane's next chunks, read and hashed ahead (see `PreparedDigest`).
    var prepared: [Int: [PreparedDigest]] = [:]

    var holdsUpload: Bool { machine != nil }

    func start(_ id: TaskID, attempt number: Int, on engine: UploadEngine) {
        engine.startTus(id, attempt: number, driver: self)
    }

    /// A `DELETE` when the server offers termination.
    func discard(_ record: TaskRecord, on engine: UploadEngine) {
        engine.terminateTus(record, driver: self)
    }

    /// A failed tus upload stays on the server, where `hoist resume` goes on with it.
    func finallyFailed(_ record: TaskRecord, on engine: UploadEngine) -> String? { nil }

    func release(
        _ checkpoint: TransferCheckpoint, of request: UploadRequest, on engine: UploadEngine,
        done: @escaping @Sendable (Result<String, Unreleased>) -> Void
    ) {
        engine.releaseTus(checkpoint, request: request, done: done)
    }
}

extension TaskRecord {
    /// A tus task's driver, which `UploadEngine.startTransfer` made.
    var tus: TusDriver { driver as! TusDriver }
}
