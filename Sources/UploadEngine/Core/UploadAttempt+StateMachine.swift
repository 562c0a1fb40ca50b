/// One attempt of a task, with no I/O: events in, actions out. It keeps
/// the attempt's byte count (never backwards, never past the total) and,
/// when the transport reports the end, decides what the outcome means: a
/// success, an early answer that is a failure, or a failure to retry after
/// a delay or to give up on. The engine carries out the actions and hands
/// the verdict to the task's state machine. Events after the end are
/// refused (`nil`).
struct UploadAttemptStateMachine: Sendable, Hashable {
    enum Event: Sendable {
        /// The body's exact length for this attempt, once the transport knows it.
        case lengthKnown(Int64)
        /// The transport counted this many bytes written so far.
        case wrote(Int64)
        /// The attempt ended. `jitter` (in 0...1) spreads the retry delays.
        case completed(HTTPTransport.Outcome, jitter: Double, now: ContinuousClock.Instant)
    }

    enum Action: Sendable, Hashable {
        case none
        case reportProgress(bytesSent: Int64)
        /// Record the response and the early flag on the task, then hand `verdict`
        /// (`.attemptSucceeded` or `.attemptFailed`) to the task's state machine.
        case finish(response: UploadResponse?, answeredEarly: Bool, verdict: UploadTaskStateMachine.Event)
    }

    /// 1-based.
    let number: Int
    private(set) var totalBytes: Int64?
    private(set) var bytesSent: Int64 = 0
    private(set) var ended = false
    private let retry: RetryPolicy
    private let success: SuccessRule
    /// Whether the body can be sent again: a stream (stdin, FIFO) was
    /// consumed by the first attempt.
    private let replayable: Bool
    /// Whether a body the server may hold already is sent again after its
    /// answer timed out: a PUT replaces what it wrote; a resumable
    /// transfer asks the server first; a POST or PATCH only when asked.
    private let resendsAfterAnswerTimeout: Bool
    private let resumable: Bool

    init(number: Int, totalBytes: Int64?, request: UploadRequest) {
        self.number = number
        self.totalBytes = totalBytes
        self.retry = request.retry
        self.success = request.success
        // A resumable transfer's driver knows what it can send again.
        self.replayable = request.body.isReplayable || request.transfer.isResumable
        self.resumable = request.transfer.isResumable
        self.resendsAfterAnswerTimeout =
            request.retry.retriesAfterSent || request.method == .put || request.transfer.isResumable
    }

    mutating func handle(_ event: Event) -> Action? {
        guard !ended else { return nil }
        switch event {
        case .lengthKnown(let length):
            totalBytes = length
            return Action.none
        case .wrote(let bytes):
            count(bytes)
            return .reportProgress(bytesSent: bytesSent)
        case .completed(let outcome, let jitter, let now):
            ended = true
            count(outcome.bytesSent)
            let early = isEarly(outcome)
            let response = try? outcome.result.get()
            guard let failure = failure(of: outcome, early: early) else {
                return .finish(response: response, answeredEarly: early, verdict: .attemptSucceeded)
            }
            let mayGoTwice: Bool
            if case .answerTimeout = failure { mayGoTwice = !resendsAfterAnswerTimeout } else { mayGoTwice = false }
            let delay =
                replayable && !mayGoTwice
                ? retry.delay(
                    afterAttempt: number, failure: failure, retryAfter: outcome.retryAfter, jitter: jitter,
                    inDoubt: outcome.inDoubt, resumable: resumable)
                : nil
            return .finish(
                response: response, answeredEarly: early, verdict: .attemptFailed(failure, retryIn: delay, now: now))
        }
    }

    private mutating func count(_ bytes: Int64) {
        var sent = max(bytesSent, bytes)
        if let totalBytes { sent = min(sent, totalBytes) }
        bytesSent = sent
    }

    /// A response that overtook the last write's completion is not early:
    /// only bytes that never went out make it so.
    private func isEarly(_ outcome: HTTPTransport.Outcome) -> Bool {
        guard outcome.answeredEarly else { return false }
        return totalBytes.map { outcome.bytesSent < $0 } ?? !outcome.requestFullySent
    }

    /// Why the attempt failed, if it did: the transport's error, the success
    /// rule's verdict, or an answer that came before the server read the body.
    private func failure(of outcome: HTTPTransport.Outcome, early: Bool) -> UploadFailure? {
        switch outcome.result {
        case .success(let response):
            if let verdict = success.evaluate(status: response.status, json: response.json) { return verdict }
            return early ? .answeredEarly(status: response.status, sent: outcome.bytesSent, total: totalBytes) : nil
        case .failure(let error):
            return error
        }
    }
}
