import Dispatch
import FormData
import NIOConcurrencyHelpers
import NIOCore

/// Attempts, on `queue`: starting one over the transport, its progress and
/// phases, and what its end means for the task (success, failure, retry).
extension UploadEngine {
    func start(_ id: TaskID) {
        guard case .startAttempt(let number)? = transition(id, .start), let record = records[id] else { return }
        let now = ContinuousClock.now
        record.snapshot.attempts = number
        record.snapshot.startedAt = record.snapshot.startedAt ?? now
        record.snapshot.answeredEarly = false
        record.snapshot.response = nil
        record.snapshot.progress = UploadProgress(attempt: number, totalBytes: record.snapshot.progress.totalBytes)
        record.attemptMachine = UploadAttemptStateMachine(
            number: number, totalBytes: record.snapshot.progress.totalBytes, request: record.snapshot.request)
        record.meter.reset(at: now)
        emit(.stateChanged(record.snapshot))
        if awaitImages(id, attempt: number) { return }
        startTransfer(id, attempt: number)
    }

    /// The attempt's requests, once any images are prepared.
    func startTransfer(_ id: TaskID, attempt number: Int) {
        guard let record = records[id] else { return }
        // Only the first attempt may use the body from `add`: a retry rebuilds it from disk.
        let prepared = record.prepared
        record.prepared = nil
        if let driver = driver(of: record) { return driver.start(id, attempt: number, on: self) }

        let callbacks = HTTPTransport.Callbacks(
            progress: { bytes in self.queue.async { self.progressed(id, attempt: number, bytes: bytes) } },
            bodySent: { bytes in
                self.queue.async {
                    self.progressed(id, attempt: number, bytes: bytes)
                    self.phaseChanged(id, attempt: number, event: .bodySent)
                }
            },
            responseStarted: { bytes in
                self.queue.async {
                    self.progressed(id, attempt: number, bytes: bytes)
                    self.phaseChanged(id, attempt: number, event: .responseStarted)
                }
            },
            completed: { outcome in self.queue.async { self.completed(id, attempt: number, outcome: outcome) } }
        )
        let attempt = transport.start(
            record.sending, attempt: number, prepared: prepared, callbacks: callbacks)
        records[id]?.attempt = attempt
        if let length = attempt.contentLength.withLockedValue({ $0 }) {
            _ = records[id]?.attemptMachine?.handle(.lengthKnown(length))
            records[id]?.snapshot.progress.totalBytes = length
        }
    }

    /// Callbacks for an exchange that cleans up after a task (`cleanups`):
    /// nothing waits for its answer but `shutdown`.
    func cleanupCallbacks() -> HTTPTransport.Callbacks {
        cleanups.enter()
        return .init(
            progress: { _ in }, bodySent: { _ in }, responseStarted: { _ in },
            completed: { _ in self.cleanups.leave() })
    }

    func isCurrent(_ id: TaskID, attempt: Int) -> Bool {
        guard let record = records[id] else { return false }
        return record.snapshot.attempts == attempt && record.snapshot.state.isRunning
    }

    private func progressed(_ id: TaskID, attempt: Int, bytes: Int64) {
        guard isCurrent(id, attempt: attempt), let record = records[id],
            case .reportProgress(let sent)? = record.attemptMachine?.handle(.wrote(bytes))
        else { return }
        updateProgress(record, sent: sent)
        emit(.progress(record.snapshot))
    }

    /// Speed and ETA for the attempt's byte count, which its machine keeps
    /// from going backwards or past the total.
    func updateProgress(_ record: TaskRecord, sent: Int64) {
        var progress = record.snapshot.progress
        record.meter.record(bytes: sent, at: .now)
        progress.bytesSent = sent
        progress.bytesPerSecond = record.meter.bytesPerSecond
        progress.eta = record.meter.eta(sent: sent, total: progress.totalBytes)
        record.snapshot.progress = progress
    }

    private func phaseChanged(_ id: TaskID, attempt: Int, event: UploadTaskStateMachine.Event) {
        guard isCurrent(id, attempt: attempt), transition(id, event) != nil else { return }
        emit(.stateChanged(records[id]!.snapshot))
    }

    func completed(_ id: TaskID, attempt: Int, outcome: HTTPTransport.Outcome) {
        var random = PooledRandomNumberGenerator()
        guard isCurrent(id, attempt: attempt), let record = records[id],
            case .finish(let response, let answeredEarly, let verdict)? = record.attemptMachine?.handle(
                .completed(outcome, jitter: Double.random(in: 0...1, using: &random), now: .now))
        else { return }
        let sentFiles = record.attempt?.sentFiles.withLockedValue { $0 }
        record.attempt = nil
        updateProgress(record, sent: record.attemptMachine!.bytesSent)
        record.snapshot.progress.eta = nil
        record.snapshot.answeredEarly = answeredEarly
        record.snapshot.response = response
        if case .attemptFailed(let failure, _?, _) = verdict, outcome.requestFullySent,
            !record.sending.isResumable, failure.mayHaveReachedTheServer
        {
            record.snapshot.possibleDuplicate = true
        }
        switch transition(id, verdict) {
        case .scheduleRetry(let delay)?:
            records[id]?.snapshot.retryDelay = delay
            emit(.stateChanged(records[id]!.snapshot))
            scheduleRetry(id, after: delay)
        case .finish?:
            finished(id, sentFiles: sentFiles)
        default:
            break
        }
        pump()
    }

    private func scheduleRetry(_ id: TaskID, after delay: Duration) {
        let work = DispatchWorkItem { [weak self] in
            guard let self, self.transition(id, .retryDue) != nil else { return }
            self.records[id]?.retryTimer = nil
            self.emit(.stateChanged(self.records[id]!.snapshot))
            self.pump()
        }
        records[id]?.retryTimer = work
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(TimeAmount(delay).nanoseconds)), execute: work)
    }
}
