import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// Tasks put back from a journal: listed as interrupted, started only by
/// "resume all" (when they have no problem) or by an explicit retry.
@Suite struct EngineRestoreTests {
    @Test func interruptedRefusesToStartAndOnlyResumesWithoutAProblem() {
        var machine = UploadTaskStateMachine(state: .interrupted(problem: nil))
        #expect(machine.handle(.start) == nil)
        #expect(machine.handle(.retryDue) == nil)
        #expect(machine.handle(.resumeInterrupted) == UploadTaskStateMachine.Action.none)
        #expect(machine.state == .queued)

        var flagged = UploadTaskStateMachine(state: .interrupted(problem: "a.bin is gone"))
        #expect(flagged.handle(.resumeInterrupted) == nil)
        #expect(flagged.state == .interrupted(problem: "a.bin is gone"))
        #expect(flagged.handle(.retryRequested) == UploadTaskStateMachine.Action.none)
        #expect(flagged.state == .queued)

        var dropped = UploadTaskStateMachine(state: .interrupted(problem: nil))
        #expect(dropped.handle(.cancel(reason: "x")) == .finish)
        #expect(dropped.state == .cancelled(reason: "x"))
    }

    @Test func resumeAllSendsTheCleanOnesInOrderAndLeavesTheFlaggedOne() async throws {
        try await Harness.run(concurrency: 1) { h in
            let a = h.files.file("a.bin", Array(repeating: 1, count: 3000))
            let b = h.files.file("b.bin", Array(repeating: 2, count: 4000))
            let c = h.files.file("c.bin", Array(repeating: 3, count: 5000))
            func request(_ path: String) -> UploadRequest {
                UploadRequest(
                    url: h.url, body: .multipart(MultipartForm(parts: [.file("file", path: path)])), label: path)
            }
            let first = try h.engine.restore(request(a))
            let second = try h.engine.restore(request(b), after: first)
            let flagged = try h.engine.restore(request(c), problem: "c.bin changed after it was queued")
            // Nothing starts on its own, and the sizes are known.
            await h.engine.settled()
            #expect(h.receiver.requestCount == 0)
            #expect(h.engine.snapshot(first)?.state == .interrupted(problem: nil))
            #expect(h.engine.snapshot(second)?.progress.totalBytes ?? 0 > 3000)

            #expect(h.engine.resumeInterrupted() == 2)
            let done = try await h.finish(second)
            #expect(done.state == .succeeded)
            #expect(try received(done).files.first?.sha256 == sha256(Array(repeating: 2, count: 4000)))
            #expect(try await h.finish(first).state == .succeeded)
            // The chain held: b started only after a had succeeded.
            let states = h.events.snapshots(of: second).map(\.state)
            #expect(states.contains(.waitingForDependency(first)))
            #expect(h.engine.snapshot(flagged)?.state == .interrupted(problem: "c.bin changed after it was queued"))
            #expect(h.receiver.requestCount == 2)

            // An explicit retry sends the flagged one as the file is now.
            h.engine.retry(flagged)
            #expect(try await h.finish(flagged).state == .succeeded)
        }
    }

    @Test func anInterruptedTaskDoesNotSwallowTheSameUploadQueuedAgain() async throws {
        try await Harness.run { h in
            let file = h.files.file("same.bin", Array(repeating: 7, count: 100))
            let request = UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("file", path: file)])))
            let old = try h.engine.restore(request)
            let new = try h.engine.add(request)
            #expect(old != new)
            #expect(try await h.finish(new).state == .succeeded)
            #expect(h.engine.snapshot(old)?.state == .interrupted(problem: nil))
            h.engine.cancel(old, reason: "dropped")
            #expect(try await h.finish(old).state == .cancelled(reason: "dropped"))
        }
    }

    @Test func aRestoredTaskWhoseFileIsGoneFailsWithTheUsualErrorWhenRetried() async throws {
        try await Harness.run { h in
            let request = UploadRequest(
                url: h.url, body: .multipart(MultipartForm(parts: [.file("file", path: h.files.path + "/gone.bin")])),
                retry: .none)
            let id = try h.engine.restore(request, problem: "gone.bin is gone")
            #expect(h.engine.snapshot(id)?.progress.totalBytes == nil)
            h.engine.retry(id)
            let done = try await h.finish(id)
            guard case .failed(let failure) = done.state else {
                Issue.record("expected a failure, got \(done.state)")
                return
            }
            #expect(failure.description.contains("gone.bin"))
            #expect(h.receiver.requestCount == 0)
        }
    }
}
