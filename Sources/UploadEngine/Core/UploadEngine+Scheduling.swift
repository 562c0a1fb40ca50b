import Dispatch

/// Scheduling, on `queue`: moving tasks through their state machines,
/// starting queued ones while slots are free, cancelling, dependencies, and
/// handing events to the monitors.
extension UploadEngine {
    /// Applies an event to a task's state machine and keeps the indexes in step.
    @discardableResult
    func transition(_ id: TaskID, _ event: UploadTaskStateMachine.Event) -> UploadTaskStateMachine.Action? {
        guard let record = records[id] else { return nil }
        let old = record.snapshot.state
        guard let action = record.machine.handle(event) else { return nil }
        let new = record.machine.state
        record.snapshot.state = new
        index.moved(
            id, from: old, to: new, priority: record.snapshot.priority, sequence: record.sequence,
            dedupeHash: record.dedupeHash)
        if case .waitingForDependency = old, new != old {
            _ = dependencies.handle(.stoppedWaiting(id))
        }
        return action
    }

    /// Starts queued tasks while request slots are free, then lets running
    /// multipart uploads widen into the slots no queued task wants.
    func pump() {
        guard !paused, !holdingStarts else { return }
        while index.running + extraSlots() < concurrency, let id = index.nextQueued {
            start(id)
        }
        if index.nextQueued == nil { widenDrivenUploads() }
        if preparesImages { prepareAhead() }
    }

    /// Whether the task was unfinished and is now cancelled.
    @discardableResult
    func cancelOnQueue(_ id: TaskID, reason: String) -> Bool {
        guard let action = transition(id, .cancel(reason: reason)), let record = records[id] else { return false }
        record.retryTimer?.cancel()
        record.retryTimer = nil
        if action == .stopAttemptAndFinish { record.attempt?.cancel() }
        record.attempt = nil
        finished(id)
        pump()
        return true
    }

    /// Makes a task that was just queued wait for its dependency, or
    /// cancels it when the dependency has failed or is gone.
    func applyDependency(_ dependency: TaskID, to id: TaskID) {
        let state = records[dependency]?.snapshot.state
        tell(
            dependencies.handle(
                .queued(
                    id, after: dependency, dependencyState: state,
                    dependencyName: records[dependency]?.snapshot.request.displayName)))
    }

    /// Hands the dependency machine's event to each task it names.
    private func tell(_ action: TaskDependencyStateMachine.Action) {
        guard case .tell(let ids, let event) = action else { return }
        for id in ids {
            guard let action = transition(id, event) else { continue }
            if action == .finish { finished(id) } else { emit(.stateChanged(records[id]!.snapshot)) }
        }
    }

    /// `sentFiles` go with the `.finished` event only: kept, they would
    /// grow every finished task the UI lists.
    func finished(_ id: TaskID, sentFiles: [SentFile]? = nil) {
        guard let record = records[id] else { return }
        tasksSharingSlots.removeAll { $0 == id }
        if record.snapshot.state != .succeeded, !record.snapshot.preparedImages.isEmpty {
            // The upload holds a copy that goes now (failed, paused, interrupted by a
            // quit): a retry prepares and sends a new one.
            record.driver?.discard(record, on: self)
        }
        if case .failed(let failure) = record.snapshot.state {
            if keepsUnreachableUploads, record.driver != nil, record.snapshot.checkpoint != nil,
                RetryPolicy.isOutage(failure)
            {
                record.snapshot.keptForResume = true
                record.snapshot.note = "kept for hoist resume, which goes on from what the server holds"
            } else if let note = record.driver?.finallyFailed(record, on: self) {
                record.snapshot.note = note
            }
        }
        removePreparedImages(record)
        record.attemptMachine = nil  // a retry makes a new one; a finished task keeps its result only
        record.snapshot.finishedAt = .now
        var snapshot = record.snapshot
        snapshot.sentFiles = sentFiles
        emit(.finished(snapshot))
        // Handed over now only for a caller about to wake up; else at the end
        // of this turn, after the next upload has been started.
        let waiting = waiters.removeValue(forKey: id) ?? []
        if !waiting.isEmpty { deliverOutbox() }
        for waiter in waiting { waiter.resume(returning: record.snapshot) }
        // Release or cancel the tasks that wait on this one.
        tell(
            dependencies.handle(.finished(id, state: record.snapshot.state, name: record.snapshot.request.displayName)))
        if index.unfinished == 0 {
            let waiting = idleWaiters
            idleWaiters = []
            deliverOutbox()
            for waiter in waiting { waiter.resume() }
        }
        if !keepsFinishedTasks {
            finishedToForget.append(id)
            if finishedToForget.count == 1 { queue.async { self.forgetFinished() } }
        }
    }

    /// Drops the records of finished tasks (see `keepsFinishedTasks`):
    /// their events are out, with their snapshots.
    private func forgetFinished() {
        for id in finishedToForget {
            guard let record = records[id], record.snapshot.state.isFinished else { continue }
            forgotten.count(record.snapshot.state)
            records[id] = nil
        }
        finishedToForget = []
    }

    func queueStatus() -> QueueStatus {
        QueueStatus(
            isPaused: paused,
            concurrency: concurrency,
            running: index.running,
            queued: index.queuedCount,
            limitRate: transport.limiter.bytesPerSecond
        )
    }

    func emitQueueStatus() {
        emit(.queueChanged(queueStatus()))
    }

    /// Queues an event for the monitors. Events raised during one turn of
    /// the engine queue go out together, one wake-up per monitor rather than
    /// one per event (a small upload raises about eight).
    func emit(_ event: UploadEvent) {
        guard !monitors.isEmpty else { return }
        outbox.append(event)
        if outbox.count == 1 { queue.async { self.deliverOutbox() } }
        // A batch of 10,000 adds would hold 10,000 snapshots (about 1 KB
        // each) here until the end of its turn: hand them over as they come.
        if outbox.count >= Self.outboxLimit { deliverOutbox() }
    }

    /// Events held in one turn before they are handed over anyway.
    static let outboxLimit = 256

    /// Hands the queued events to the monitors, in order. Called before any
    /// waiter is resumed, so a caller that wakes up sees every event so far.
    func deliverOutbox() {
        guard !outbox.isEmpty else { return }
        let batch = outbox
        outbox = []
        monitors.deliver(batch)
    }
}
