/// The life of one task, with no I/O: events in, actions out. The engine
/// feeds it events from the scheduler and the transport and carries out the
/// actions it returns. Events that do not apply in the current state are
/// refused (`nil`) and change nothing, so a late event from a cancelled
/// attempt cannot revive a task.
struct UploadTaskStateMachine: Sendable, Hashable {
    enum Event: Sendable, Hashable {
        case dependencyPending(TaskID)
        case dependencySucceeded
        /// The dependency failed or was cancelled.
        case dependencyEnded(reason: String)
        /// The scheduler gave the task a slot.
        case start
        case bodySent
        /// A response head arrived; while sending, the server answered early.
        case responseStarted
        case attemptSucceeded
        /// `retryIn` is the retry policy's verdict: `nil` means give up.
        case attemptFailed(UploadFailure, retryIn: Duration?, now: ContinuousClock.Instant)
        case retryDue
        case cancel(reason: String)
        /// The user asked to try a failed, cancelled or interrupted task again.
        case retryRequested
        /// "Resume all": an interrupted task with no problem goes back in the queue.
        case resumeInterrupted
        /// An interrupted task's file changed since it was queued: "resume
        /// all" leaves it alone from now on.
        case flag(problem: String)
    }

    enum Action: Sendable, Hashable {
        case none
        case startAttempt(number: Int)
        case scheduleRetry(after: Duration)
        /// Stop the running attempt, then report the task finished.
        case stopAttemptAndFinish
        case finish
    }

    private(set) var state: TaskState
    /// Attempts started so far.
    private(set) var attempts = 0

    init(state: TaskState = .queued) {
        self.state = state
    }

    mutating func handle(_ event: Event) -> Action? {
        switch (state, event) {
        case (.queued, .dependencyPending(let id)):
            state = .waitingForDependency(id)
            return Action.none
        case (.waitingForDependency, .dependencySucceeded):
            state = .queued
            return Action.none
        case (.queued, .dependencyEnded(let reason)), (.waitingForDependency, .dependencyEnded(let reason)):
            state = .cancelled(reason: reason)
            return .finish
        case (.queued, .start):
            attempts += 1
            state = .sending
            return .startAttempt(number: attempts)
        case (.sending, .bodySent), (.sending, .responseStarted):
            state = .awaitingResponse
            return Action.none
        case (.sending, .attemptSucceeded), (.awaitingResponse, .attemptSucceeded):
            state = .succeeded
            return .finish
        case (.sending, .attemptFailed(let failure, let delay, let now)),
            (.awaitingResponse, .attemptFailed(let failure, let delay, let now)):
            if let delay {
                state = .waitingToRetry(at: now + delay)
                return .scheduleRetry(after: delay)
            }
            state = .failed(failure)
            return .finish
        case (.waitingToRetry, .retryDue):
            state = .queued
            return Action.none
        case (.sending, .cancel(let reason)), (.awaitingResponse, .cancel(let reason)):
            state = .cancelled(reason: reason)
            return .stopAttemptAndFinish
        case (.queued, .cancel(let reason)), (.waitingForDependency, .cancel(let reason)),
            (.waitingToRetry, .cancel(let reason)), (.interrupted, .cancel(let reason)):
            state = .cancelled(reason: reason)
            return .finish
        case (.interrupted(problem: nil), .resumeInterrupted):
            state = .queued
            return Action.none
        case (.interrupted, .flag(let problem)):
            state = .interrupted(problem: problem)
            return Action.none
        case (.failed, .retryRequested), (.cancelled, .retryRequested), (.interrupted, .retryRequested):
            state = .queued
            return Action.none
        default:
            return nil
        }
    }
}
