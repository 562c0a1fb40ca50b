import Testing

@testable import UploadEngine

/// Who waits for whom, with no I/O: tasks queued, stopping and finishing in,
/// the events for the waiting tasks' own machines out.
@Suite struct DependencyStateMachineTests {
    let front = TaskID(1)
    let back = TaskID(2)
    let selfie = TaskID(3)

    @Test func aTaskWaitsForAnUnfinishedDependencyAndIsReleasedWhenItSucceeds() {
        var machine = TaskDependencyStateMachine()
        let backWaits = machine.handle(.queued(back, after: front, dependencyState: .sending))
        #expect(backWaits == .tell([back], .dependencyPending(front)))
        let selfieWaits = machine.handle(.queued(selfie, after: front, dependencyState: .sending))
        #expect(selfieWaits == .tell([selfie], .dependencyPending(front)))
        #expect(machine.dependents == [front: [back, selfie]])
        #expect(machine.handle(.finished(front, state: .succeeded)) == .tell([back, selfie], .dependencySucceeded))
        #expect(machine.dependents.isEmpty && machine.waitingOn.isEmpty)
        #expect(machine.handle(.finished(front, state: .succeeded)) == TaskDependencyStateMachine.Action.none)
    }

    @Test func everyUnfinishedStateIsWaitedFor() {
        let unfinished: [TaskState] = [
            .queued, .waitingForDependency(TaskID(9)), .sending, .awaitingResponse,
            .waitingToRetry(at: .now), .interrupted(problem: nil), .interrupted(problem: "gone"),
        ]
        for state in unfinished {
            var machine = TaskDependencyStateMachine()
            let action = machine.handle(.queued(back, after: front, dependencyState: state))
            #expect(action == .tell([back], .dependencyPending(front)), "\(state)")
        }
    }

    @Test func aFinishedDependencyDecidesAtOnce() {
        var machine = TaskDependencyStateMachine()
        let afterSuccess = machine.handle(.queued(back, after: front, dependencyState: .succeeded))
        #expect(afterSuccess == TaskDependencyStateMachine.Action.none)
        #expect(
            machine.handle(.queued(back, after: front, dependencyState: .failed(.httpStatus(500, message: nil))))
                == .tell([back], .dependencyEnded(reason: "task #1 failed: HTTP 500 Internal Server Error")))
        #expect(
            machine.handle(.queued(back, after: front, dependencyState: .cancelled(reason: "cancelled by the user")))
                == .tell([back], .dependencyEnded(reason: "task #1 was cancelled (cancelled by the user)")))
        #expect(
            machine.handle(.queued(back, after: TaskID(7), dependencyState: nil))
                == .tell([back], .dependencyEnded(reason: "task #7 does not exist")))
        #expect(machine.dependents.isEmpty, "nobody waits on a finished task")
    }

    @Test func aFailedOrCancelledDependencyCancelsItsDependents() {
        var machine = TaskDependencyStateMachine()
        _ = machine.handle(.queued(back, after: front, dependencyState: .queued))
        _ = machine.handle(.queued(selfie, after: back, dependencyState: .waitingForDependency(front)))
        #expect(
            machine.handle(.finished(front, state: .failed(.httpStatus(500, message: nil))))
                == .tell([back], .dependencyEnded(reason: "task #1 failed: HTTP 500 Internal Server Error")))
        #expect(
            machine.handle(.finished(back, state: .cancelled(reason: "task #1 failed")))
                == .tell([selfie], .dependencyEnded(reason: "task #2 was cancelled")),
            "the chain goes on, one link at a time")
        #expect(machine.dependents.isEmpty && machine.waitingOn.isEmpty)
    }

    @Test func aTaskThatStopsWaitingIsNotToldAgain() {
        var machine = TaskDependencyStateMachine()
        _ = machine.handle(.queued(back, after: front, dependencyState: .sending))
        _ = machine.handle(.queued(selfie, after: front, dependencyState: .sending))
        #expect(machine.handle(.stoppedWaiting(back)) == TaskDependencyStateMachine.Action.none)
        #expect(machine.handle(.stoppedWaiting(back)) == TaskDependencyStateMachine.Action.none, "once is enough")
        #expect(machine.waitingOn == [selfie: front])
        // Retried while the dependency still runs: it waits again, once.
        _ = machine.handle(.queued(back, after: front, dependencyState: .sending))
        #expect(machine.handle(.finished(front, state: .succeeded)) == .tell([selfie, back], .dependencySucceeded))

        var alone = TaskDependencyStateMachine()
        _ = alone.handle(.queued(back, after: front, dependencyState: .sending))
        _ = alone.handle(.stoppedWaiting(back))
        #expect(alone.dependents.isEmpty)
        #expect(alone.handle(.finished(front, state: .succeeded)) == TaskDependencyStateMachine.Action.none)
    }
}
