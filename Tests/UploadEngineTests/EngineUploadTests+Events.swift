import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// The events the engine raises for real uploads: what `.added` and `.finished` carry, which a monitor
/// gets, how a slow answer shows, how often progress is told.
extension EngineUploadTests {
    /// Asked to, the engine tells the size and SHA-256 of each file of a body
    /// it read whole, as the server received them, in the `.finished` event
    /// only; not for a body it streamed (over 256 KiB) or one in base64.
    @Test func aFinishedEventTellsTheFilesItSentWhenAsked() async throws {
        try await Harness.run(digestsSentFiles: true) { h in
            let front = randomFile(h, "身份证 正面.jpg", size: 20_000, seed: 1)
            let back = randomFile(h, "back.jpg", size: 1, seed: 2)
            let big = randomFile(h, "big.bin", size: 300_000, seed: 3)
            let small = try h.engine.add(
                UploadRequest(
                    url: h.url,
                    body: .multipart(
                        MultipartForm(parts: [
                            .file("front", path: front.path), .text("id", "7"), .file("back", path: back.path),
                        ]))))
            let streamed = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("big", path: big.path)]))))
            let base64 = try h.engine.add(
                UploadRequest(url: h.url, body: .base64JSON(Base64JSONBody(fileField: "image", path: back.path))))
            // Out of the page cache, the body is read on the thread pool instead: told all the same.
            let cold = randomFile(h, "cold.bin", size: 5_000, seed: 7)
            let descriptor = open(cold.path, O_RDONLY)
            #expect(fsync(descriptor) == 0 && posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
            close(descriptor)
            let uncached = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("cold", path: cold.path)]))))
            for id in [small, streamed, base64, uncached] { #expect(try await h.finish(id).state == .succeeded) }
            let upload = try received(try await h.finish(small))
            let finished = h.events.all().compactMap { event -> TaskSnapshot? in
                if case .finished(let task) = event { task } else { nil }
            }
            let told = try #require(finished.first { $0.id == small }?.sentFiles)
            #expect(
                told == [
                    SentFile(size: 20_000, sha256: sha256(front.bytes)), SentFile(size: 1, sha256: sha256(back.bytes)),
                ])
            #expect(told.map(\.sha256) == upload.files.map(\.sha256))
            #expect(finished.first { $0.id == streamed }?.sentFiles == nil)
            #expect(finished.first { $0.id == base64 }?.sentFiles == nil)
            #expect(
                finished.first { $0.id == uncached }?.sentFiles == [SentFile(size: 5_000, sha256: sha256(cold.bytes))])
            // Not kept: the task as the engine lists it afterwards has none.
            #expect(try await h.finish(small).sentFiles == nil)
        }
        try await Harness.run { h in
            let file = randomFile(h, "a.bin", size: 100, seed: 4)
            let id = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("a", path: file.path)]))))
            _ = try await h.finish(id)
            let finished = h.events.all().compactMap { event -> TaskSnapshot? in
                if case .finished(let task) = event { task } else { nil }
            }
            #expect(finished.count == 1 && finished[0].sentFiles == nil, "not asked, not told")
        }
    }

    /// The `.added` event carries each file as `add` checked it, in the
    /// body's file order, for the journal; later events do not.
    @Test func anAddedEventCarriesTheFilesAsChecked() async throws {
        try await Harness.run { h in
            let front = randomFile(h, "身份证 正面.jpg", size: 2_000, seed: 5)
            let back = randomFile(h, "back.jpg", size: 10, seed: 6)
            let request = UploadRequest(
                url: h.url,
                body: .multipart(
                    MultipartForm(parts: [
                        .file("front", path: front.path), .text("id", "7"), .file("back", path: back.path),
                    ])))
            let id = try h.engine.add(request)
            _ = try await h.finish(id)
            let events = h.events.all().filter { $0.snapshot?.id == id }
            guard case .added(let added)? = events.first else {
                Issue.record("no .added first")
                return
            }
            #expect(added.fileSnapshots == [FileSnapshot(path: front.path)!, FileSnapshot(path: back.path)!])
            #expect(request.body.filePaths == [front.path, back.path])
            #expect(events.dropFirst().allSatisfy { $0.snapshot?.fileSnapshots == nil })
        }
    }

    /// `hoist send` keeps no finished task: its monitors had the result.
    @Test func finishedTasksGoWhenTheEngineKeepsNone() async throws {
        try await Harness.run(keepsFinishedTasks: false) { h in
            h.engine.pause()
            let ids = try h.engine.add(
                batch: (0..<3).map {
                    UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.text("n", "\($0)")])))
                })
            let refused = try h.engine.add(
                UploadRequest(url: "http://127.0.0.1:9/upload", body: .bytes([1], contentType: "a/b"), retry: .none))
            h.engine.resume()
            await h.engine.waitUntilIdle()
            await h.engine.settled()
            #expect(h.engine.snapshots().isEmpty)
            #expect(h.engine.tally() == UploadEngine.Tally(unfinished: 0, succeeded: 3, total: 4))
            let finished = h.events.all().compactMap { event -> TaskSnapshot? in
                if case .finished(let task) = event { task } else { nil }
            }
            #expect(Set(finished.map(\.id)) == Set(ids + [refused]))
            #expect(finished.filter { $0.response?.status == 200 }.count == 3)
            #expect(await h.engine.result(of: ids[0]) == nil, "gone, and not waited for forever")
        }
    }

    /// A monitor is handed only the events it wants; the others still get all.
    @Test func aMonitorGetsOnlyTheEventsItWants() async throws {
        try await Harness.run { h in
            let all = EventLog()
            let finishedOnly = FinishedOnlyLog()
            let engine = UploadEngine(
                configuration: .init(concurrency: 2, environment: [:]), monitors: [all, finishedOnly])
            var ids: [TaskID] = []
            for index in 0..<3 {
                let file = randomFile(h, "f\(index).bin", size: 1_000, seed: UInt64(index))
                // Slow answers, so that every kind of event is raised.
                ids.append(
                    try engine.add(
                        UploadRequest(
                            url: h.url + "?delay=150",
                            body: .multipart(MultipartForm(parts: [.file("f", path: file.path)])))))
            }
            await engine.waitUntilIdle()
            await engine.shutdown()
            let finished = finishedOnly.all().compactMap { if case .finished(let s) = $0 { s.id } else { nil } }
            #expect(finishedOnly.all().count == 3)
            #expect(Set(finished) == Set(ids))
            let kinds = Set(
                all.all().map { event -> String in
                    switch event {
                    case .added: "added"
                    case .stateChanged: "stateChanged"
                    case .progress: "progress"
                    case .checkpoint: "checkpoint"
                    case .finished: "finished"
                    case .queueChanged: "queueChanged"
                    }
                })
            #expect(kinds.isSuperset(of: ["added", "stateChanged", "progress", "finished"]))
        }
    }

    /// A sent body whose answer is slow shows as awaiting the response, with
    /// every byte counted. A quick answer reports the sent body with the
    /// outcome instead (one hop to the engine, not two): all bytes counted too.
    @Test func aSlowAnswerShowsAsAwaitingTheResponse() async throws {
        try await Harness.run { h in
            let file = randomFile(h, "身份证 正面.jpg", size: 20_000, seed: 5)
            let form = MultipartForm(parts: [.file("front", path: file.path)])
            let slow = try await h.finish(
                try h.engine.add(UploadRequest(url: h.url + "?delay=400", body: .multipart(form))))
            let quick = try await h.finish(try h.engine.add(UploadRequest(url: h.url, body: .multipart(form))))
            for done in [slow, quick] {
                #expect(done.state == .succeeded)
                #expect(done.progress.bytesSent == done.progress.totalBytes)
                #expect(done.progress.bytesSent == (try received(done).bodyBytes))
            }
            let waiting = h.events.snapshots(of: slow.id).filter { $0.state == .awaitingResponse }
            #expect(!waiting.isEmpty, "the slow task never showed as awaiting the response")
            #expect(waiting.allSatisfy { $0.progress.bytesSent == $0.progress.totalBytes })
        }
    }

    @Test func progressEventsAreThrottled() async throws {
        try await Harness.run(configure: { $0.readBytesPerSecond = 20_000_000 }) { h in
            let big = randomFile(h, "big.bin", size: 20_000_000, seed: 4)
            let done = try await h.finish(
                try h.engine.add(
                    UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: big.path)])))))
            #expect(done.state == .succeeded)
            let progressEvents = h.events.all().filter {
                if case .progress(let s) = $0 { s.id == done.id } else { false }
            }
            let seconds = ProgressMeter.seconds(done.finishedAt! - done.startedAt!)
            // About 20 a second at most, plus the last; an event per slice would give 10.
            #expect(progressEvents.count >= 2)
            #expect(Double(progressEvents.count) <= seconds * 20 + 3, "\(progressEvents.count) events in \(seconds) s")
        }
    }
}

/// An event log that asks for finished tasks only.
final class FinishedOnlyLog: UploadEventMonitor, @unchecked Sendable {
    private let log = EventLog()
    var queue: DispatchQueue { log.queue }

    func wants(_ event: UploadEvent) -> Bool {
        if case .finished = event { return true }
        return false
    }

    func handle(_ event: UploadEvent) {
        log.handle(event)
    }

    func all() -> [UploadEvent] {
        log.all()
    }
}
