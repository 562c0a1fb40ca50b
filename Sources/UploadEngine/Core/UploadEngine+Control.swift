import Dispatch

/// The queue's controls, each a `queue.sync` turn: the concurrency limit,
/// the bandwidth limit, pausing the queue or one task, cancelling, moving a
/// queued task and retrying a finished one.
extension UploadEngine {
    public var concurrencyLimit: Int {
        get { queue.sync { concurrency } }
        set {
            queue.sync {
                concurrency = max(1, newValue)
                emitQueueStatus()
                pump()
            }
        }
    }

    /// Bytes per second over every upload at once; nil for no limit.
    /// Running uploads keep to a new limit from their next piece on.
    public var limitRate: Int64? {
        get { transport.limiter.bytesPerSecond }
        set {
            queue.sync {
                transport.limiter.bytesPerSecond = newValue
                emitQueueStatus()
            }
        }
    }

    public var isPaused: Bool { queue.sync { paused } }

    /// Stops starting new tasks; running ones go on.
    public func pause() {
        queue.sync {
            paused = true
            emitQueueStatus()
        }
    }

    public func resume() {
        queue.sync {
            paused = false
            emitQueueStatus()
            pump()
        }
    }

    public static let pausedReason = "paused by the user"
    /// Why the UI's quit and `hoist send`'s Ctrl-C or SIGTERM cancel what is
    /// unfinished: with a journal the tasks go on at the next start.
    public static let quitReason = "hoist quit"
    public static let interruptedReason = "interrupted"

    /// Stops one task, to go on later with `retry`: it ends as cancelled
    /// (`pausedReason`), but what a resumable upload has on the server stays,
    /// so the retry goes on from the server's offset (a plain upload starts again).
    public func pause(_ id: TaskID) {
        queue.sync { _ = cancelOnQueue(id, reason: Self.pausedReason) }
    }

    /// Cancels a task that has not finished; a running one has its connection
    /// closed, and a tus upload is deleted on the server when it offers
    /// termination (quitting and `cancelAll` keep it, to resume later).
    public func cancel(_ id: TaskID, reason: String = "cancelled by the user") {
        cancel([id], reason: reason)
    }

    /// Cancels several tasks at once (the UI's `C` on marked tasks): no
    /// task starts in a slot another of them frees, so none is sent only
    /// to be cancelled a moment later. Others queued take the freed slots.
    /// An interrupted task whose checkpoint names an upload on the server is
    /// discarded (`discard`): cancelled once the server freed it.
    public func cancel(_ ids: [TaskID], reason: String = "cancelled by the user") {
        let held = queue.sync {
            ids.filter { id in
                guard let snapshot = records[id]?.snapshot, case .interrupted = snapshot.state else { return false }
                return snapshot.checkpoint != nil
            }
        }
        if !held.isEmpty { discard(held) }
        queue.sync {
            cancelTogether(ids.filter { !held.contains($0) }, reason: reason) { record in
                guard let driver = record.driver, driver.holdsUpload else { return }
                driver.discard(record, on: self)
                // Freed on the server: the Response pane no longer says it holds the upload (issue 37 #11).
                if record.snapshot.checkpoint == nil {
                    record.snapshot.note = "what the server held of it was freed"
                    emit(.stateChanged(record.snapshot))
                }
            }
        }
    }

    public enum QueueMove: Sendable, Hashable {
        case up, down, front
    }

    /// Moves a queued task one place up or down the queue (it trades places
    /// with its neighbour, priority included), or before every other queued task.
    public func move(_ id: TaskID, _ move: QueueMove) {
        queue.sync {
            guard let record = records[id], record.snapshot.state == .queued else { return }
            let key = SchedulerIndex.QueueKey(record.snapshot)
            let other: SchedulerIndex.QueueKey
            let new: SchedulerIndex.QueueKey
            switch move {
            case .up, .down:
                guard let neighbor = index.neighbor(of: key, move == .up ? -1 : 1) else { return }
                other = neighbor
                new = .init(priority: neighbor.priority, sequence: neighbor.sequence, id: id)
            case .front:
                guard let first = index.firstQueued, first.id != id else { return }
                other = first
                new = .init(priority: first.priority, sequence: first.sequence - 1, id: id)
            }
            var changes = [(old: key, new: new)]
            if move != .front {
                changes.append((other, .init(priority: key.priority, sequence: key.sequence, id: other.id)))
            }
            index.rekey(changes)
            for change in changes {
                guard let moved = records[change.new.id] else { continue }
                moved.snapshot.priority = change.new.priority
                moved.sequence = change.new.sequence
                emit(.stateChanged(moved.snapshot))
            }
            if preparesImages { prepareAhead() }  // the new next ones
        }
    }

    /// Cancels every unfinished task (quit, Ctrl-C, shutdown), keeping what
    /// resumable uploads hold on the server, to go on later.
    public func cancelAll(reason: String = "cancelled by the user") {
        queue.sync { cancelTogether(records.keys.sorted(), reason: reason) { _ in } }
    }

    /// Stops every unfinished task for a quit or a signal (`quitReason`,
    /// `interruptedReason`): nothing new starts, and a request whose whole
    /// body is sent gets up to `grace` for its answer, so what the server
    /// took is recorded as done and never sent again (issue 37 #1). The
    /// rest are cancelled at once; a journal keeps them for the next start.
    public func stopAll(reason: String, grace: Duration) async {
        queue.sync {
            paused = true
            let now = records.keys.filter { records[$0]?.snapshot.state != .awaitingResponse }
            cancelTogether(now.sorted(), reason: reason) { _ in }
        }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline,
            queue.sync(execute: { records.values.contains { $0.snapshot.state == .awaitingResponse } })
        {
            try? await Task.sleep(for: .milliseconds(20))
        }
        cancelAll(reason: reason)
    }

    /// The ones waiting first, then the running ones, with starts held
    /// until the end: a running task's end would otherwise start a queued
    /// one of the same batch (issue 37 #1: `C` and quit sent 8 more requests).
    private func cancelTogether(_ ids: [TaskID], reason: String, then cleanUp: (TaskRecord) -> Void) {
        let held = holdingStarts
        holdingStarts = true
        let running = ids.filter { records[$0]?.snapshot.state.isRunning == true }
        for id in ids.filter({ records[$0]?.snapshot.state.isRunning != true }) + running {
            if cancelOnQueue(id, reason: reason), let record = records[id] { cleanUp(record) }
        }
        holdingStarts = held
        pump()
    }

    /// Queues a failed or cancelled task again, as a new attempt.
    public func retry(_ id: TaskID) {
        queue.sync {
            guard transition(id, .retryRequested) != nil, let record = records[id] else { return }
            record.snapshot.finishedAt = nil
            record.snapshot.answeredEarly = false
            // It shows (and the totals count) what the server holds: a
            // resumable upload's offset, else nothing; its time starts again.
            record.snapshot.progress = UploadProgress(
                bytesSent: record.snapshot.checkpoint?.offset ?? 0, totalBytes: record.snapshot.progress.totalBytes)
            record.snapshot.startedAt = nil
            record.snapshot.retryDelay = nil
            emit(.stateChanged(records[id]!.snapshot))
            if let dependency = records[id]?.snapshot.dependency {
                applyDependency(dependency, to: id)
            }
            pump()
        }
    }
}
