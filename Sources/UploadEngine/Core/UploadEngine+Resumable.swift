import Dispatch
import FormData

/// What the engine does for every resumable kind's driver, the same for
/// each: an attempt's bar and its end as the task's state machine sees it
/// (retries with backoff, `Retry-After`, the budget of attempts that moved
/// nothing), and the checkpoints its monitors keep.
extension UploadEngine {
    /// Begins a resumable attempt: one attempt of many
    /// exchanges (cancelling it cancels each), and a bar that starts where
    /// the server was last known to be, not at 0.
    func beginResumable(_ record: TaskRecord, attempt number: Int, totalBytes: Int64?, offset: Int64) {
        record.attempt = HTTPTransport.Attempt()
        record.lastAnswer = nil
        record.attemptStartOffset = offset
        record.snapshot.note = nil
        record.snapshot.progress.totalBytes = totalBytes
        record.snapshot.progress.bytesSent = offset
        record.meter.rebase(bytes: offset, at: .now)
        record.attemptMachine = UploadAttemptStateMachine(
            number: number, totalBytes: totalBytes, request: record.sending)
    }

    /// Ends a resumable attempt as the task's state machine sees
    /// attempts: a retry goes on from the checkpoint. An attempt that moved
    /// the offset counts as the first of its run, so a long upload on a
    /// flaky link is not given up after `retries` faults spread over hours.
    /// `recheck`: the failure left the server's state in doubt, so it is
    /// retried (within the budget) whatever its kind, and the next attempt asks first.
    func finishResumable(
        _ id: TaskID, attempt number: Int, _ result: Result<UploadResponse?, UploadFailure>, offset: Int64,
        recheck: Bool = false
    ) {
        guard let record = records[id] else { return }
        // A failed exchange ends the attempt: the others stop too.
        if case .failure = result { record.attempt?.cancel() }
        record.attempt = nil
        if offset > record.attemptStartOffset { record.stalledAttempts = 0 }
        record.attemptMachine = UploadAttemptStateMachine(
            number: record.stalledAttempts + 1, totalBytes: record.snapshot.progress.totalBytes,
            request: record.sending)
        let final: Result<UploadResponse, UploadFailure>
        switch result {
        case .success(let response?): final = .success(response)
        case .success(nil): final = .failure(.protocolError("the upload ended with no answer"))
        case .failure(let failure): final = .failure(failure)
        }
        if case .failure = final { record.stalledAttempts += 1 }
        completed(
            id, attempt: number,
            outcome: HTTPTransport.Outcome(
                result: final, bytesSent: offset, answeredEarly: false, requestFullySent: true,
                retryAfter: record.lastRetryAfter, inDoubt: recheck))
    }

    /// The driver's new durable state: on the task, and to the monitors
    /// (the journal keeps it) before the bar shows `sent` as done.
    func saveCheckpoint(_ checkpoint: TransferCheckpoint, of record: TaskRecord, sent: Int64) {
        record.snapshot.checkpoint = checkpoint
        updateProgress(record, sent: sent)
        emit(.checkpoint(record.snapshot))
    }
}

extension UploadEngine {
    /// Gives a queued resumable task an earlier run's upload of the same
    /// file to go on with (issue 37 #4, as tus-js-client's fingerprints):
    /// its first attempt asks the server what it holds, as after a restore.
    /// The checkpoint reaches the monitors, so the journal keeps it.
    public func goOn(_ id: TaskID, from checkpoint: TransferCheckpoint) {
        queue.sync {
            guard let record = records[id], record.snapshot.state == .queued, record.driver == nil else { return }
            saveCheckpoint(checkpoint, of: record, sent: checkpoint.offset)
        }
    }
}
