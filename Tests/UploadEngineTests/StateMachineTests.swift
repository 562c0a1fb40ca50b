import Testing

@testable import UploadEngine

/// The task state machine, with no I/O: events in, actions and states out.
@Suite struct StateMachineTests {
    let now = ContinuousClock.now

    @Test func happyPath() {
        var machine = UploadTaskStateMachine()
        #expect(machine.state == .queued)
        #expect(machine.handle(.start) == .startAttempt(number: 1))
        #expect(machine.state == .sending)
        #expect(machine.handle(.bodySent) == UploadTaskStateMachine.Action.none)
        #expect(machine.state == .awaitingResponse)
        #expect(machine.handle(.attemptSucceeded) == .finish)
        #expect(machine.state == .succeeded)
        #expect(machine.attempts == 1)
    }

    @Test func finishedTasksRefuseEveryEvent() {
        var machine = UploadTaskStateMachine()
        _ = machine.handle(.start)
        _ = machine.handle(.attemptSucceeded)
        let events: [UploadTaskStateMachine.Event] = [
            .start, .bodySent, .responseStarted, .attemptSucceeded, .retryDue, .cancel(reason: "x"),
            .retryRequested, .dependencySucceeded, .dependencyEnded(reason: "x"),
            .attemptFailed(.other("x"), retryIn: nil, now: now),
        ]
        for event in events {
            #expect(machine.handle(event) == nil, "\(event)")
            #expect(machine.state == .succeeded)
        }
    }

    @Test func failureWithRetryWaitsThenStartsANewAttempt() {
        var machine = UploadTaskStateMachine()
        _ = machine.handle(.start)
        let action = machine.handle(.attemptFailed(.httpStatus(503, message: nil), retryIn: .seconds(2), now: now))
        #expect(action == .scheduleRetry(after: .seconds(2)))
        #expect(machine.state == .waitingToRetry(at: now + .seconds(2)))
        #expect(machine.handle(.start) == nil, "a waiting task is not started before its retry is due")
        #expect(machine.handle(.retryDue) == UploadTaskStateMachine.Action.none)
        #expect(machine.state == .queued)
        #expect(machine.handle(.start) == .startAttempt(number: 2))
    }

    @Test func failureWithoutRetryFails() {
        var machine = UploadTaskStateMachine()
        _ = machine.handle(.start)
        _ = machine.handle(.bodySent)
        #expect(machine.handle(.attemptFailed(.httpStatus(400, message: "bad"), retryIn: nil, now: now)) == .finish)
        #expect(machine.state == .failed(.httpStatus(400, message: "bad")))
    }

    @Test func earlyResponseMovesToAwaitingResponse() {
        var machine = UploadTaskStateMachine()
        _ = machine.handle(.start)
        #expect(machine.handle(.responseStarted) == UploadTaskStateMachine.Action.none)
        #expect(machine.state == .awaitingResponse)
        #expect(machine.handle(.bodySent) == nil)
    }

    @Test func dependencies() {
        var child = UploadTaskStateMachine()
        #expect(child.handle(.dependencyPending(TaskID(1))) == UploadTaskStateMachine.Action.none)
        #expect(child.state == .waitingForDependency(TaskID(1)))
        #expect(child.handle(.start) == nil, "a waiting task cannot start")
        #expect(child.handle(.dependencySucceeded) == UploadTaskStateMachine.Action.none)
        #expect(child.state == .queued)

        var orphan = UploadTaskStateMachine()
        _ = orphan.handle(.dependencyPending(TaskID(1)))
        #expect(orphan.handle(.dependencyEnded(reason: "task #1 failed")) == .finish)
        #expect(orphan.state == .cancelled(reason: "task #1 failed"))
    }

    @Test func cancelInEachState() {
        var running = UploadTaskStateMachine()
        _ = running.handle(.start)
        #expect(running.handle(.cancel(reason: "user")) == .stopAttemptAndFinish)
        #expect(running.state == .cancelled(reason: "user"))
        #expect(running.handle(.attemptSucceeded) == nil, "a late success cannot revive a cancelled task")

        var queued = UploadTaskStateMachine()
        #expect(queued.handle(.cancel(reason: "user")) == .finish)

        var retrying = UploadTaskStateMachine()
        _ = retrying.handle(.start)
        _ = retrying.handle(.attemptFailed(.connectionLost("reset"), retryIn: .seconds(1), now: now))
        #expect(retrying.handle(.cancel(reason: "user")) == .finish)
        #expect(retrying.handle(.retryDue) == nil)
    }

    @Test func manualRetryOfFailedAndCancelled() {
        var failed = UploadTaskStateMachine()
        _ = failed.handle(.start)
        _ = failed.handle(.attemptFailed(.httpStatus(500, message: nil), retryIn: nil, now: now))
        #expect(failed.handle(.retryRequested) == UploadTaskStateMachine.Action.none)
        #expect(failed.state == .queued)
        #expect(failed.handle(.start) == .startAttempt(number: 2))

        var cancelled = UploadTaskStateMachine()
        _ = cancelled.handle(.cancel(reason: "x"))
        #expect(cancelled.handle(.retryRequested) == UploadTaskStateMachine.Action.none)

        var queued = UploadTaskStateMachine()
        #expect(queued.handle(.retryRequested) == nil)
    }
}

/// The scheduler's queue, as the engine moves tasks through it: start order
/// is priority, then order of adding, however many have started before.
@Suite struct SchedulerIndexTests {
    @Test func startOrderHoldsAsTasksStartJumpAndLeave() {
        var index = SchedulerIndex()
        func key(_ n: Int) -> Int {
            DedupeKey.hash(UploadRequest(url: "http://127.0.0.1/up/\(n)", body: .bytes([], contentType: "text/plain")))
        }
        func add(_ n: Int, _ priority: TaskPriority = .normal) {
            index.added(TaskID(n), priority: priority, sequence: n, dedupeHash: key(n))
        }
        func move(_ n: Int, _ priority: TaskPriority = .normal, from old: TaskState, to new: TaskState) {
            index.moved(TaskID(n), from: old, to: new, priority: priority, sequence: n, dedupeHash: key(n))
        }
        for n in 1...100 { add(n) }
        for n in 1...60 {
            #expect(index.nextQueued == TaskID(n))
            move(n, from: .queued, to: .sending)
        }
        #expect(index.queuedCount == 40)
        #expect(index.running == 60)
        add(101, .high)
        add(102, .low)
        move(70, from: .queued, to: .cancelled(reason: "x"))
        // A task put back in the queue (a retry) goes to its place again.
        move(5, from: .sending, to: .queued)
        #expect(index.queuedCount == 42)
        var order: [Int] = []
        while let next = index.nextQueued {
            order.append(next.rawValue)
            move(
                next.rawValue, next.rawValue == 101 ? .high : next.rawValue == 102 ? .low : .normal, from: .queued,
                to: .sending)
        }
        #expect(order == [101, 5] + Array(61...69) + Array(71...100) + [102])
        #expect(index.queuedCount == 0)
        #expect(index.running == 102 - 1)
        #expect(index.unfinished == 102 - 1)
    }
}
