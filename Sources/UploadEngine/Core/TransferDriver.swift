/// A resumable transfer kind (tus, S3) as the engine sees it: one driver
/// per task, kept across its attempts, holding the kind's state machine and
/// what its exchanges under way need. The engine owns the rest, the same
/// for every kind: the task's states, retries with backoff, the attempt's
/// bar and checkpoints (`beginResumable`, `finishResumable`), cancel and
/// request slots. A driver turns an attempt into exchanges and ends it
/// through `finishResumable`. A new kind is a folder with its driver and
/// one line in `TransferKinds.builtIn` (docs/ARCHITECTURE.md, "Adding a
/// transfer kind").
protocol TransferDriver: AnyObject {
    /// Starts attempt `number` of task `id` (its record holds this driver).
    func start(_ id: TaskID, attempt number: Int, on engine: UploadEngine)
    /// Frees what the server holds for the upload (tus `DELETE`, S3
    /// `AbortMultipartUpload`) and forgets it, so a retry starts anew.
    func discard(_ record: TaskRecord, on engine: UploadEngine)
    /// The task failed for good: what the driver did so that no upload
    /// stays open on the server unknown to anyone (`nil`: nothing).
    func finallyFailed(_ record: TaskRecord, on engine: UploadEngine) -> String?
    /// An earlier run's upload this task will not go on with: freed when
    /// the next attempt has what it needs to ask the server.
    func abandon(_ checkpoint: TransferCheckpoint)
    /// Frees now what the server holds for `checkpoint`, a restored task's
    /// upload that is being discarded (the driver has no machine and no
    /// keys yet). `done` says what happened, or why nothing was freed.
    func release(
        _ checkpoint: TransferCheckpoint, of request: UploadRequest, on engine: UploadEngine,
        done: @escaping @Sendable (Result<String, Unreleased>) -> Void)
    /// Whether the server holds an upload this driver knows of.
    var holdsUpload: Bool { get }
    /// Request slots taken beyond the task's own (parts sent at once).
    var extraSlots: Int { get }
    /// Request slots were freed: the driver may send more at once.
    func slotsFreed(_ id: TaskID, attempt number: Int, on engine: UploadEngine)
}

extension TransferDriver {
    func finallyFailed(_ record: TaskRecord, on engine: UploadEngine) -> String? { nil }
    func abandon(_ checkpoint: TransferCheckpoint) {}
    func release(
        _ checkpoint: TransferCheckpoint, of request: UploadRequest, on engine: UploadEngine,
        done: @escaping @Sendable (Result<String, Unreleased>) -> Void
    ) { done(.success("nothing was held on the server")) }
    var extraSlots: Int { 0 }
    func slotsFreed(_ id: TaskID, attempt number: Int, on engine: UploadEngine) {}
}

extension UploadEngine {
    /// The task's driver, made on first use; `nil` for a single request.
    func driver(of record: TaskRecord) -> (any TransferDriver)? {
        if let driver = record.driver { return driver }
        record.driver = record.sending.transfer.makeDriver()
        return record.driver
    }

    /// Request slots the running tasks' drivers take beyond their own.
    func extraSlots(except skipped: TaskID? = nil) -> Int {
        tasksSharingSlots.reduce(0) { sum, id in
            guard id != skipped, let record = records[id], record.snapshot.state.isRunning,
                let driver = record.driver
            else { return sum }
            return sum + driver.extraSlots
        }
    }

    /// Offers free request slots to the running drivers, oldest first.
    func widenDrivenUploads() {
        for id in tasksSharingSlots where index.running + extraSlots() < concurrency {
            guard let record = records[id], let driver = record.driver, record.snapshot.state.isRunning else {
                continue
            }
            driver.slotsFreed(id, attempt: record.snapshot.attempts, on: self)
        }
    }
}
