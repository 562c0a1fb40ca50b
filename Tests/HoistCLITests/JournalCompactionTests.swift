import FormData
import Foundation
import Glibc
import Receiver
import TestSupport
import Testing
import UploadEngine

@testable import hoist

/// A journal that lives long (the UI, left open for days) is compacted as
/// tasks come and go: its log stays small, and what it reads back is the
/// unfinished tasks only.
@Suite struct JournalCompactionTests {
    @Test func aLongLivedJournalIsCompactedAndReadsBackItsUnfinishedTasks() async throws {
        try await withReceiver { receiver, _ in
            let folder = TemporaryDirectory()
            let store = try JournalStore(directory: folder.path)
            let recorder = JournalRecorder(store: store, command: "test") { Issue.record("journal: \($0)") }
            let engine = UploadEngine(configuration: .init(concurrency: 4, environment: [:]), monitors: [recorder])
            // One task an earlier run left: it stays interrupted, so the journal is never empty.
            let left = UploadRequest(
                url: receiver.baseURL + "/upload", body: .multipart(MultipartForm(parts: [.text("left", "1")])),
                label: "left over")
            let summary = recorder.restore(
                [JournalTask(TaskSnapshot(id: TaskID(1), request: left), files: [])], into: engine)
            #expect(summary.restored == 1)
            // 1,200 uploads, in batches as a user would queue them: about 600 KB of records.
            for batch in 0..<12 {
                let ids = try engine.add(
                    batch: (0..<100).map { n in
                        UploadRequest(
                            url: receiver.baseURL + "/upload",
                            body: .multipart(MultipartForm(parts: [.text("n", "\(batch)-\(n)")])),
                            label: "upload \(batch)-\(n) with a name long enough to weigh")
                    })
                for id in ids { #expect(await engine.result(of: id)?.state == .succeeded) }
            }
            recorder.sync()
            let log = (try? FileManager.default.attributesOfItem(atPath: store.logPath))?[.size] as? Int ?? 0
            #expect(FileManager.default.fileExists(atPath: store.path), "no snapshot was written")
            #expect(log < 300_000, "the log was not compacted: \(log) bytes")
            let orphan = Orphan(directory: folder.path, name: store.name, lock: -1)
            let document = try orphan.read()
            #expect(document.tasks.map(\.request.displayName) == ["left over"])
            recorder.finish()
            await engine.shutdown()
        }
    }

    /// The journal holds a task's end until it is on disk; the next task's
    /// start, passed on meanwhile, made the screen count more running tasks
    /// than slots ("running 9/8", issue 37 #11). Events go on in order.
    @Test func theScreenNeverSeesMoreRunningTasksThanSlots() async throws {
        try await withReceiver { receiver, _ in
            let folder = TemporaryDirectory()
            let screen = RunningCounter()
            let recorder = JournalRecorder(
                store: try JournalStore(directory: folder.path), command: "test", downstream: [screen]
            ) { Issue.record("journal: \($0)") }
            let engine = UploadEngine(configuration: .init(concurrency: 2, environment: [:]), monitors: [recorder])
            let ids = try engine.add(
                batch: (0..<60).map { n in
                    UploadRequest(
                        url: receiver.baseURL + "/upload", body: .multipart(MultipartForm(parts: [.text("n", "\(n)")])))
                })
            for id in ids { #expect(await engine.result(of: id)?.state == .succeeded) }
            recorder.sync()
            recorder.finish()
            await engine.shutdown()
            screen.queue.sync {}
            #expect(screen.finished == 60)
            #expect(screen.most <= 2, "the screen saw \(screen.most) running with 2 slots")
        }
    }
}

/// Counts the running tasks as a screen fed by the journal would.
final class RunningCounter: UploadEventMonitor, @unchecked Sendable {
    let queue = DispatchQueue(label: "running counter")
    private var running: Set<TaskID> = []
    private(set) var most = 0
    private(set) var finished = 0

    func handle(_ event: UploadEvent) {
        switch event {
        case .stateChanged(let task), .progress(let task), .checkpoint(let task), .added(let task):
            if task.state.isRunning { running.insert(task.id) } else { running.remove(task.id) }
        case .finished(let task):
            running.remove(task.id)
            finished += 1
        case .queueChanged:
            break
        }
        most = max(most, running.count)
    }
}
