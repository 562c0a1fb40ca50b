import Dispatch
import Synchronization

/// Why what the server holds was not freed: the task stays, to try again.
public struct Unreleased: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension UploadEngine {
    /// What discarding one task did.
    public struct Discarded: Sendable, Hashable {
        /// The server holds nothing of it any more, and the task is cancelled.
        public var freed: Bool
        public var text: String
    }

    /// Ends interrupted tasks (an earlier run's, restored) and frees what
    /// the server holds for them: tus `DELETE`, S3 `AbortMultipartUpload`,
    /// from their checkpoints (issue 37 #3). A task is cancelled only once
    /// the server answered; one whose server cannot be asked stays
    /// interrupted, its note saying why, so no upload is left open that no
    /// journal knows of. `done` gets each task's outcome, on the engine's queue.
    public func discard(_ ids: [TaskID], done: @escaping @Sendable ([TaskID: Discarded]) -> Void = { _ in }) {
        queue.async {
            let group = DispatchGroup()
            let results = Mutex<[TaskID: Discarded]>([:])
            for id in ids {
                guard let record = self.records[id], case .interrupted = record.snapshot.state else { continue }
                guard let checkpoint = record.snapshot.checkpoint, let driver = self.driver(of: record) else {
                    let text = "nothing was held on the server"
                    self.cancelOnQueue(id, reason: "discarded: " + text)
                    results.withLock { $0[id] = Discarded(freed: true, text: text) }
                    continue
                }
                record.snapshot.note = "asking the server to free " + checkpoint.summary
                self.emit(.stateChanged(record.snapshot))
                group.enter()
                driver.release(checkpoint, of: record.sending, on: self) { result in
                    self.queue.async {
                        defer { group.leave() }
                        guard let record = self.records[id] else { return }
                        switch result {
                        case .success(let text):
                            record.snapshot.checkpoint = nil
                            record.snapshot.note = text
                            self.cancelOnQueue(id, reason: "discarded: " + text)
                            results.withLock { $0[id] = Discarded(freed: true, text: text) }
                        case .failure(let why):
                            record.snapshot.note = why.description + "; it stays, to discard again"
                            self.emit(.stateChanged(record.snapshot))
                            results.withLock { $0[id] = Discarded(freed: false, text: why.description) }
                        }
                    }
                }
            }
            group.notify(queue: self.queue) { done(results.withLock { $0 }) }
        }
    }

    /// Callbacks for a release's one exchange: its answer, or why there was none.
    func releaseCallbacks(
        _ done: @escaping @Sendable (Result<UploadResponse, UploadFailure>) -> Void
    ) -> HTTPTransport.Callbacks {
        .init(
            progress: { _ in }, bodySent: { _ in }, responseStarted: { _ in },
            completed: { outcome in done(outcome.result) })
    }
}
