import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// Dependencies, dedupe, priorities, pause/resume and cancel, against the real Receiver.
@Suite(.serialized) struct EngineSchedulingTests {
    func request(_ h: Harness, _ name: String, query: String = "", retry: RetryPolicy = .none) -> UploadRequest {
        let file = randomFile(h, name, size: 5_000, seed: UInt64(name.utf8.count))
        return UploadRequest(
            url: h.url + query, body: .multipart(MultipartForm(parts: [.file("image", path: file.path)])), retry: retry,
            label: name)
    }

    /// The order in which tasks started sending.
    func startOrder(_ h: Harness) -> [TaskID] {
        var order: [TaskID] = []
        for case .stateChanged(let snapshot) in h.events.all()
        where snapshot.state == .sending && !order.contains(snapshot.id) {
            order.append(snapshot.id)
        }
        return order
    }

    @Test func backOfTheCardWaitsForTheFront() async throws {
        try await Harness.run { h in
            let front = try h.engine.add(request(h, "front.jpg", query: "?delay=200"))
            let back = try h.engine.add(request(h, "back.jpg"), after: front)
            #expect(h.engine.snapshot(back)?.state == .waitingForDependency(front))
            let frontDone = try await h.finish(front)
            let backDone = try await h.finish(back)
            #expect(frontDone.state == .succeeded && backDone.state == .succeeded)
            #expect(backDone.startedAt! >= frontDone.finishedAt!)
        }
    }

    /// A batch is added whole, in order, with its chain; one bad file
    /// anywhere in it adds nothing, and nothing is sent.
    @Test func aBatchIsAddedWholeOrNotAtAll() async throws {
        try await Harness.run { h in
            var requests = (0..<40).map { request(h, "photo-\($0).jpg") }
            requests.append(
                UploadRequest(
                    url: h.url,
                    body: .multipart(MultipartForm(parts: [.file("image", path: h.files.path + "/missing.jpg")]))))
            #expect(throws: UploadFailure.input(.fileNotFound(field: "image", path: h.files.path + "/missing.jpg"))) {
                try h.engine.add(batch: requests, after: Array(repeating: nil, count: requests.count))
            }
            #expect(h.engine.snapshots().isEmpty)
            requests.removeLast()
            let ids = try h.engine.add(batch: requests, after: [nil, 0] + Array(repeating: nil, count: 38))
            #expect(ids.map(\.rawValue) == Array(1...40))
            #expect(h.engine.snapshot(ids[1])?.dependency == ids[0])
            await h.engine.waitUntilIdle()
            #expect(h.engine.snapshots().allSatisfy { $0.state == .succeeded })
            #expect(h.receiver.requestCount == 40)
            #expect(h.engine.snapshot(ids[1])!.startedAt! >= h.engine.snapshot(ids[0])!.finishedAt!)
        }
    }

    @Test func failedDependencyCancelsTheDependents() async throws {
        try await Harness.run { h in
            let front = try h.engine.add(request(h, "front.jpg", query: "?status=500"))
            let back = try h.engine.add(request(h, "back.jpg"), after: front)
            let selfie = try h.engine.add(request(h, "selfie.jpg"), after: back)
            await h.engine.waitUntilIdle()
            #expect(h.engine.snapshot(front)?.failure == .httpStatus(500, message: nil))
            guard case .cancelled(let reason)? = h.engine.snapshot(back)?.state else {
                Issue.record("back not cancelled")
                return
            }
            #expect(reason.hasPrefix("front.jpg (task #1) failed: HTTP 500"), "the link is named")
            #expect(h.engine.snapshot(selfie)?.state == .cancelled(reason: "back.jpg (task #2) was cancelled"))
            #expect(h.engine.snapshot(back)?.attempts == 0, "nothing was sent for it")
            #expect(h.receiver.requestCount == 1)
        }
    }

    /// K, J and T in the Tasks pane: queued tasks trade places, or one goes
    /// first; they start in the new order.
    @Test func queuedTasksMoveUpDownAndToTheFront() async throws {
        try await Harness.run(concurrency: 1) { h in
            h.engine.pause()
            let ids = try ["a", "b", "c", "d"].map { try h.engine.add(request(h, "\($0).jpg")) }
            h.engine.move(ids[3], .front)  // d a b c
            h.engine.move(ids[0], .down)  // d b a c
            h.engine.move(ids[2], .up)  // d b c a
            h.engine.move(ids[3], .up)  // first already: nothing
            h.engine.resume()
            var done: [TaskSnapshot] = []
            for id in ids { done.append(try await h.finish(id)) }
            let started = done.sorted { $0.startedAt! < $1.startedAt! }.map(\.request.displayName)
            #expect(started == ["d.jpg", "b.jpg", "c.jpg", "a.jpg"])
            // The snapshots say the order too: the UI lists tasks by it.
            let order = done.sorted(by: TaskSnapshot.startsBefore).map(\.request.displayName)
            #expect(order == started)
            h.engine.move(ids[0], .front)  // finished: nothing moves
            #expect(h.engine.snapshot(ids[0])?.sequence == done.first { $0.id == ids[0] }?.sequence)
        }
    }

    @Test func dependencyOnAFinishedTask() async throws {
        try await Harness.run { h in
            let ok = try h.engine.add(request(h, "ok.jpg"))
            _ = try await h.finish(ok)
            let next = try h.engine.add(request(h, "next.jpg"), after: ok)
            #expect(try await h.finish(next).state == .succeeded)
            let cancelled = try h.engine.add(request(h, "c.jpg", query: "?delay=5000"))
            h.engine.cancel(cancelled)
            let orphan = try h.engine.add(request(h, "orphan.jpg"), after: cancelled)
            #expect(
                h.engine.snapshot(orphan)?.state
                    == .cancelled(reason: "c.jpg (task #3) was cancelled (cancelled by the user)"))
        }
    }

    @Test func identicalRequestIsNotAddedTwice() async throws {
        try await Harness.run { h in
            h.engine.pause()
            let base = request(h, "same.jpg")
            let first = try h.engine.add(base)
            var again = base
            if case .multipart(var form) = again.body {
                form.boundary = .random()
                again.body = .multipart(form)
            }
            #expect(try h.engine.add(again) == first, "same upload while queued")
            var other = base
            other.url += "?x=1"
            #expect(try h.engine.add(other) != first)
            h.engine.resume()
            _ = try await h.finish(first)
            #expect(try h.engine.add(base) != first, "once finished, the same upload can be sent again")
            await h.engine.waitUntilIdle()
        }
    }

    @Test func higherPriorityStartsFirst() async throws {
        try await Harness.run(concurrency: 1) { h in
            h.engine.pause()
            let low = try h.engine.add(request(h, "low.jpg"), priority: .low)
            let normal = try h.engine.add(request(h, "normal.jpg"), priority: .normal)
            let high = try h.engine.add(request(h, "high.jpg"), priority: .high)
            let normal2 = try h.engine.add(request(h, "normal2.jpg"), priority: .normal)
            h.engine.resume()
            await h.engine.waitUntilIdle()
            #expect(startOrder(h) == [high, normal, normal2, low])
        }
    }

    @Test func pauseHoldsTheQueueAndResumeRunsIt() async throws {
        try await Harness.run(concurrency: 2) { h in
            h.engine.pause()
            #expect(h.engine.isPaused)
            let ids = try (0..<5).map { try h.engine.add(request(h, "p\($0).jpg")) }
            await h.engine.settled()
            #expect(ids.allSatisfy { h.engine.snapshot($0)?.state == .queued })
            #expect(h.receiver.requestCount == 0)
            h.engine.concurrencyLimit = 3
            h.engine.resume()
            await h.engine.waitUntilIdle()
            #expect(ids.allSatisfy { h.engine.snapshot($0)?.state == .succeeded })
            let statuses = h.events.all().compactMap { if case .queueChanged(let s) = $0 { s } else { nil } }
            #expect(statuses.map(\.isPaused) == [true, true, false])
            #expect(statuses.last?.concurrency == 3)
        }
    }

    /// Cancelling several tasks, or all (quit, Ctrl-C), never starts one:
    /// the running tasks' ends used to start queued ones of the same batch,
    /// whose requests reached the server (issue 37 #1). What the receiver
    /// saved is the evidence.
    @Test(arguments: ["marked", "all", "stop"])
    func cancellingSeveralStartsNoneOfThem(_ how: String) async throws {
        try await Harness.run(concurrency: 2) { h in
            // Names of different lengths: different contents (the receiver keeps one copy of a body).
            let ids = try (0..<8).map {
                try h.engine.add(request(h, "held" + String(repeating: "-", count: $0) + ".jpg", query: "?delay=3000"))
            }
            // Both slots busy, their bodies sent: the server holds each answer for 3 s.
            while ids.filter({ h.engine.snapshot($0)?.state == .awaitingResponse }).count < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let cancelled = how == "marked" ? Array(ids.prefix(6)) : ids
            switch how {
            case "all": h.engine.cancelAll(reason: "hoist quit")
            // The UI's quit and Ctrl-C: the answers on their way get a moment (less than the 3 s they take here).
            case "stop": await h.engine.stopAll(reason: "hoist quit", grace: .milliseconds(300))
            default: h.engine.cancel(cancelled)
            }
            let started = cancelled.filter { (h.engine.snapshot($0)?.attempts ?? 0) > 0 }
            #expect(started.count == 2, "only the two that were running had started")
            // The receiver saves each body it read whole: at most the two that
            // were running (a reset may beat the last bytes of one to it).
            try await Task.sleep(for: .milliseconds(500))
            func saved() -> Int {
                FileManager.default.enumerator(atPath: h.saved.path)?.allObjects.count { object in
                    var isFolder: ObjCBool = false
                    _ = FileManager.default.fileExists(atPath: h.saved.path + "/\(object)", isDirectory: &isFolder)
                    return !isFolder.boolValue
                } ?? 0
            }
            if how != "marked" {
                #expect(saved() <= 2)
                #expect(ids.allSatisfy { h.engine.snapshot($0)?.state == .cancelled(reason: "hoist quit") })
            } else {
                // The two left unmarked take the freed slots, and only they.
                for id in ids.suffix(2) { #expect(try await h.finish(id).state == .succeeded) }
                #expect((2...4).contains(saved()))
            }
        }
    }

    @Test func cancelMidUploadLeaksNoDescriptors() async throws {
        try await Harness.run(configure: { $0.readBytesPerSecond = 2_000_000 }) { h in
            let file = randomFile(h, "large.bin", size: 40_000_000, seed: 5)
            // Warm the pool so the count below includes the client's steady state.
            _ = try await h.finish(try h.engine.add(request(h, "warm.jpg")))
            let port = h.receiver.port
            let before = establishedConnections(toPort: port)
            let id = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: file.path)]))))
            while (h.engine.snapshot(id)?.progress.bytesSent ?? 0) < 1_000_000 {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(!openDescriptors(to: file.path).isEmpty, "the file is open while it is sent")
            var mapped = false
            for _ in 0..<400 where !mapped {
                mapped = mappings(of: file.path) >= 1
                if !mapped { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(mapped, "to the receiver on loopback, its slices go out mapped")
            #expect(establishedConnections(toPort: port) >= 1, "the upload's connection is seen")
            h.engine.cancel(id)
            let done = try await h.finish(id)
            #expect(done.state == .cancelled(reason: "cancelled by the user"))
            #expect(done.progress.bytesSent < done.progress.totalBytes!)
            var settled = false
            for _ in 0..<100 where !settled {
                settled =
                    openDescriptors(to: file.path).isEmpty && mappings(of: file.path) == 0
                    && establishedConnections(toPort: port) <= before
                if !settled { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(openDescriptors(to: file.path).isEmpty, "the uploaded file was closed")
            #expect(mappings(of: file.path) == 0, "no slice of it is still mapped")
            #expect(establishedConnections(toPort: port) <= before, "the cancelled connection was closed")
        }
    }

    @Test func retryOfAFailedTask() async throws {
        try await Harness.run(configure: { $0.failFirst = 1 }) { h in
            let id = try h.engine.add(request(h, "again.jpg"))
            let failed = try await h.finish(id)
            #expect(failed.failure == .httpStatus(503, message: nil) && failed.progress.bytesSent > 0)
            // While it waits, it shows nothing sent and no time: not the failed attempt's.
            h.engine.pause()
            h.engine.retry(id)
            let waiting = try #require(h.engine.snapshot(id))
            #expect(waiting.state == .queued && waiting.progress.bytesSent == 0 && waiting.startedAt == nil)
            h.engine.resume()
            let done = try await h.finish(id)
            #expect(done.state == .succeeded)
            #expect(done.attempts == 2)
        }
    }
}
