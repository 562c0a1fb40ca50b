import Dispatch
import FormData
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Queues uploads and runs them over AsyncHTTPClient: a concurrency limit,
/// priorities, dedupe, dependencies, pause/resume, cancel and retry.
///
/// One serial DispatchQueue owns all scheduling state; transport callbacks
/// hop onto it, and events go out on each monitor's own queue.
public final class UploadEngine: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var concurrency: Int
        /// Turns TLS certificate verification off.
        public var insecure: Bool
        /// Response bytes kept in memory per task; the rest is counted only.
        public var responseBodyCap: Int
        /// Where proxy settings come from (`http_proxy`, `https_proxy`, `no_proxy`).
        public var environment: [String: String]
        /// How file parts reach a plaintext HTTP/1.1 socket.
        public var fileSending: FileSending

        public init(
            concurrency: Int = 4,
            insecure: Bool = false,
            responseBodyCap: Int = 8 << 20,
            environment: [String: String] = ProcessInfo.processInfo.environment,
            fileSending: FileSending = .automatic
        ) {
            self.fileSending = fileSending
            self.concurrency = concurrency
            self.insecure = insecure
            self.responseBodyCap = responseBodyCap
            self.environment = environment
        }
    }

    /// One task's state. A class, so the engine reads and changes a task in
    /// place instead of copying the whole record (request, snapshot, body)
    /// out of the dictionary and back on every event.
    private final class Record {
        var snapshot: TaskSnapshot
        var machine = UploadTaskStateMachine()
        var sequence: Int
        var identity: UploadRequest
        var attempt: HTTPTransport.Attempt?
        var retryTimer: DispatchWorkItem?
        var meter = ProgressMeter()
        /// The body encoded by `add`, for the first attempt; the transport
        /// uses it only while every file still matches its snapshot.
        var prepared: RequestBody?

        init(snapshot: TaskSnapshot, sequence: Int, identity: UploadRequest, prepared: RequestBody?) {
            self.snapshot = snapshot
            self.sequence = sequence
            self.identity = identity
            self.prepared = prepared
        }
    }

    private let queue = DispatchQueue(label: "hoist.upload-engine")
    private let transport: HTTPTransport
    private let monitors: [any UploadEventMonitor]
    // State below is touched only on `queue`.
    private var records: [TaskID: Record] = [:]
    /// Indexes kept in step with the tasks' states by `transition`, so no
    /// event scans every task (1,000 tasks must cost what 10 do).
    private var index = SchedulerIndex()
    private var nextID = 1
    private var concurrency: Int
    private var paused = false
    private var waiters: [TaskID: [CheckedContinuation<TaskSnapshot?, Never>]] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var outbox: [UploadEvent] = []

    public init(configuration: Configuration = Configuration(), monitors: [any UploadEventMonitor] = []) {
        self.concurrency = max(1, configuration.concurrency)
        self.monitors = monitors
        self.transport = HTTPTransport(
            insecure: configuration.insecure,
            responseBodyCap: configuration.responseBodyCap,
            environment: configuration.environment,
            fileSending: configuration.fileSending
        )
    }

    // MARK: - Adding and controlling tasks

    /// Queues an upload. The URL and every file are checked first, so bad
    /// input throws here and nothing is sent. An identical upload that is
    /// already queued or running is not added again: its id is returned.
    ///
    /// With `dependency`, the task starts only after that task succeeded, and
    /// is cancelled if it fails or is cancelled.
    @discardableResult
    public func add(_ request: UploadRequest, priority: TaskPriority = .normal, after dependency: TaskID? = nil) throws(UploadFailure) -> TaskID {
        let body = try Self.prepare(request)
        return queue.sync { insert(request, body: body, priority: priority, dependency: dependency) }
    }

    /// Queues several uploads in order, as `add` does each, but checks every
    /// URL and file first (files on all cores) and adds nothing when one is
    /// bad: a bad URL throws first, then the first bad file. `after[i]`,
    /// when set, is the index of an earlier request of the batch that
    /// request `i` waits for. One hop to the engine's queue for the whole
    /// batch, and one batch of events.
    @discardableResult
    public func add(batch requests: [UploadRequest], after: [Int?] = [], priority: TaskPriority = .normal) throws(UploadFailure) -> [TaskID] {
        // A batch usually goes to one URL: checked once, not once per request.
        var checked: Set<String> = []
        for request in requests where checked.insert(request.url).inserted {
            _ = try HTTPTransport.validate(url: request.url)
        }
        let bodies = NIOLockedValueBox<[Result<RequestBody, UploadFailure>?]>(Array(repeating: nil, count: requests.count))
        DispatchQueue.concurrentPerform(iterations: requests.count) { index in
            let result = Result { () throws(UploadFailure) -> RequestBody in try Self.encode(requests[index]) }
            bodies.withLockedValue { $0[index] = result }
        }
        var prepared: [RequestBody] = []
        for result in bodies.withLockedValue({ $0 }) { prepared.append(try result!.get()) }
        return queue.sync {
            records.reserveCapacity(records.count + requests.count)
            index.reserveCapacity(requests.count)
            var ids: [TaskID] = []
            ids.reserveCapacity(requests.count)
            for (index, request) in requests.enumerated() {
                let dependency = index < after.count ? after[index].map { ids[$0] } : nil
                ids.append(insert(request, body: prepared[index], priority: priority, dependency: dependency))
            }
            return ids
        }
    }

    /// The body as the first attempt will send it; throws for a bad URL or file.
    private static func prepare(_ request: UploadRequest) throws(UploadFailure) -> RequestBody {
        _ = try HTTPTransport.validate(url: request.url)
        return try encode(request)
    }

    /// The body as the first attempt will send it; throws for a bad file.
    private static func encode(_ request: UploadRequest) throws(UploadFailure) -> RequestBody {
        do {
            return try request.body.encode()
        } catch {
            throw .input(error)
        }
    }

    /// On `queue`.
    private func insert(_ request: UploadRequest, body: RequestBody, priority: TaskPriority, dependency: TaskID?) -> TaskID {
        let identity = request.identity
        if let existing = index.active[identity] {
            return existing
        }
        let id = TaskID(nextID)
        nextID += 1
        let record = Record(
            snapshot: TaskSnapshot(
                id: id, request: request, priority: priority, dependency: dependency, state: .queued,
                progress: UploadProgress(totalBytes: body.contentLength), attempts: 0, response: nil, answeredEarly: false,
                addedAt: .now, startedAt: nil, finishedAt: nil),
            sequence: id.rawValue,
            identity: identity,
            prepared: body
        )
        records[id] = record
        index.added(id, priority: priority, sequence: record.sequence, identity: identity)
        emit(.added(record.snapshot))
        if let dependency {
            applyDependency(dependency, to: id)
        }
        pump()
        return id
    }

    /// Puts back a task that an earlier run did not finish, as `.interrupted`:
    /// it is listed but not started until `resumeInterrupted()` (when
    /// `problem` is nil) or `retry`. Files are not checked here; a file that
    /// is gone fails the attempt that needs it, with the usual error.
    @discardableResult
    public func restore(_ request: UploadRequest, priority: TaskPriority = .normal, after dependency: TaskID? = nil, problem: String? = nil) throws(UploadFailure) -> TaskID {
        _ = try HTTPTransport.validate(url: request.url)
        let total = try? request.body.encode().contentLength
        return queue.sync {
            let id = TaskID(nextID)
            nextID += 1
            let state = TaskState.interrupted(problem: problem)
            let record = Record(
                snapshot: TaskSnapshot(
                    id: id, request: request, priority: priority, dependency: dependency, state: state,
                    progress: UploadProgress(totalBytes: total), addedAt: .now),
                sequence: id.rawValue,
                identity: request.identity,
                prepared: nil  // built when it starts: its files may have changed
            )
            record.machine = UploadTaskStateMachine(state: state)
            records[id] = record
            index.added(id, state: state, priority: priority, sequence: record.sequence, identity: record.identity)
            emit(.added(record.snapshot))
            return id
        }
    }

    /// Queues every interrupted task that has no problem, in the order they
    /// were restored, with their dependencies. Returns how many were queued.
    @discardableResult
    public func resumeInterrupted() -> Int {
        queue.sync {
            var resumed = 0
            for id in records.keys.sorted() where transition(id, .resumeInterrupted) != nil {
                resumed += 1
                emit(.stateChanged(records[id]!.snapshot))
                if let dependency = records[id]?.snapshot.dependency {
                    applyDependency(dependency, to: id)
                }
            }
            pump()
            return resumed
        }
    }

    /// Checks a URL as `add` does: http or https, with a host.
    @discardableResult
    public static func validate(url: String) throws(UploadFailure) -> String {
        _ = try HTTPTransport.validate(url: url)
        return url
    }

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

    /// Cancels a task that has not finished; a running one has its connection closed.
    public func cancel(_ id: TaskID, reason: String = "cancelled by the user") {
        queue.sync { cancelOnQueue(id, reason: reason) }
    }

    public func cancelAll(reason: String = "cancelled by the user") {
        queue.sync {
            for id in records.keys.sorted() { cancelOnQueue(id, reason: reason) }
        }
    }

    /// Queues a failed or cancelled task again, as a new attempt.
    public func retry(_ id: TaskID) {
        queue.sync {
            guard transition(id, .retryRequested) != nil else { return }
            records[id]?.snapshot.finishedAt = nil
            records[id]?.snapshot.answeredEarly = false
            emit(.stateChanged(records[id]!.snapshot))
            if let dependency = records[id]?.snapshot.dependency {
                applyDependency(dependency, to: id)
            }
            pump()
        }
    }

    // MARK: - Reading state

    public func snapshot(_ id: TaskID) -> TaskSnapshot? {
        queue.sync { records[id]?.snapshot }
    }

    /// All tasks, in the order they were added.
    public func snapshots() -> [TaskSnapshot] {
        queue.sync { records.values.sorted { $0.snapshot.id < $1.snapshot.id }.map(\.snapshot) }
    }

    public var status: QueueStatus { queue.sync { queueStatus() } }

    /// Which of `ids` have not finished. A journal asks this about once a
    /// second instead of taking a `.finished` event (and a thread wake-up)
    /// per task.
    public func unfinished(among ids: some Sequence<TaskID>) -> Set<TaskID> {
        queue.sync { Set(ids.filter { records[$0].map { !$0.snapshot.state.isFinished } ?? false }) }
    }

    /// Waits until the task has finished and returns its final snapshot.
    public func result(of id: TaskID) async -> TaskSnapshot? {
        await withCheckedContinuation { (continuation: CheckedContinuation<TaskSnapshot?, Never>) in
            queue.async {
                self.deliverOutbox()
                guard let record = self.records[id] else { return continuation.resume(returning: nil) }
                if record.snapshot.state.isFinished { return continuation.resume(returning: record.snapshot) }
                self.waiters[id, default: []].append(continuation)
            }
        }
    }

    /// Waits until every task has finished.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.deliverOutbox()
                if self.index.unfinished == 0 {
                    continuation.resume()
                } else {
                    self.idleWaiters.append(continuation)
                }
            }
        }
    }

    /// Cancels everything and closes the HTTP clients.
    public func shutdown() async {
        cancelAll(reason: "the engine shut down")
        await waitUntilIdle()
        await transport.shutdown()
    }

    // MARK: - Scheduling (on `queue`)

    /// Applies an event to a task's state machine and keeps the indexes in step.
    @discardableResult
    private func transition(_ id: TaskID, _ event: UploadTaskStateMachine.Event) -> UploadTaskStateMachine.Action? {
        guard let record = records[id] else { return nil }
        let old = record.snapshot.state
        guard let action = record.machine.handle(event) else { return nil }
        record.snapshot.state = record.machine.state
        index.moved(id, from: old, to: record.snapshot.state, priority: record.snapshot.priority, sequence: record.sequence, identity: record.identity)
        return action
    }

    private func pump() {
        guard !paused else { return }
        while index.running < concurrency, let id = index.nextQueued {
            start(id)
        }
    }

    private func start(_ id: TaskID) {
        guard case .startAttempt(let number)? = transition(id, .start), let record = records[id] else { return }
        let now = ContinuousClock.now
        record.snapshot.attempts = number
        record.snapshot.startedAt = record.snapshot.startedAt ?? now
        record.snapshot.answeredEarly = false
        record.snapshot.response = nil
        record.snapshot.progress = UploadProgress(attempt: number, totalBytes: record.snapshot.progress.totalBytes)
        record.meter.reset(at: now)
        // Only the first attempt may use the body from `add`: a retry rebuilds it from disk.
        let prepared = record.prepared
        record.prepared = nil
        emit(.stateChanged(record.snapshot))

        let callbacks = HTTPTransport.Callbacks(
            progress: { bytes in self.queue.async { self.progressed(id, attempt: number, bytes: bytes) } },
            bodySent: { bytes in
                self.queue.async {
                    self.progressed(id, attempt: number, bytes: bytes)
                    self.phaseChanged(id, attempt: number, event: .bodySent)
                }
            },
            responseStarted: { bytes in
                self.queue.async {
                    self.progressed(id, attempt: number, bytes: bytes)
                    self.phaseChanged(id, attempt: number, event: .responseStarted)
                }
            },
            completed: { outcome in self.queue.async { self.completed(id, attempt: number, outcome: outcome) } }
        )
        let attempt = transport.start(record.snapshot.request, attempt: number, prepared: prepared, callbacks: callbacks)
        records[id]?.attempt = attempt
        if let length = attempt.contentLength.withLockedValue({ $0 }) {
            records[id]?.snapshot.progress.totalBytes = length
        }
    }

    private func isCurrent(_ id: TaskID, attempt: Int) -> Bool {
        guard let record = records[id] else { return false }
        return record.snapshot.attempts == attempt && record.snapshot.state.isRunning
    }

    private func progressed(_ id: TaskID, attempt: Int, bytes: Int64) {
        guard isCurrent(id, attempt: attempt), let record = records[id] else { return }
        updateProgress(record, bytes: bytes)
        emit(.progress(record.snapshot))
    }

    private func updateProgress(_ record: Record, bytes: Int64) {
        var progress = record.snapshot.progress
        // Never backwards, never past the total.
        var sent = max(progress.bytesSent, bytes)
        if let total = progress.totalBytes { sent = min(sent, total) }
        record.meter.record(bytes: sent, at: .now)
        progress.bytesSent = sent
        progress.bytesPerSecond = record.meter.bytesPerSecond
        progress.eta = record.meter.eta(sent: sent, total: progress.totalBytes)
        record.snapshot.progress = progress
    }

    private func phaseChanged(_ id: TaskID, attempt: Int, event: UploadTaskStateMachine.Event) {
        guard isCurrent(id, attempt: attempt), transition(id, event) != nil else { return }
        emit(.stateChanged(records[id]!.snapshot))
    }

    private func completed(_ id: TaskID, attempt: Int, outcome: HTTPTransport.Outcome) {
        guard isCurrent(id, attempt: attempt), let record = records[id] else { return }
        record.attempt = nil
        updateProgress(record, bytes: outcome.bytesSent)
        record.snapshot.progress.eta = nil
        // A response that overtook the last write's completion is not early: only missing bytes make it so.
        let total = record.snapshot.progress.totalBytes
        let early = outcome.answeredEarly && (total.map { outcome.bytesSent < $0 } ?? !outcome.requestFullySent)
        record.snapshot.answeredEarly = early
        let policy = record.snapshot.request.retry
        let failure: UploadFailure?
        switch outcome.result {
        case .success(let response):
            record.snapshot.response = response
            if let verdict = record.snapshot.request.success.evaluate(status: response.status, json: response.json) {
                failure = verdict
            } else if early {
                failure = .answeredEarly(status: response.status, sent: outcome.bytesSent, total: total)
            } else {
                failure = nil
            }
        case .failure(let error):
            failure = error
        }
        let event: UploadTaskStateMachine.Event
        if let failure {
            // A stream (stdin, FIFO) was consumed by the first attempt and cannot be sent again.
            let delay = record.snapshot.request.body.isReplayable
                ? policy.delay(afterAttempt: attempt, failure: failure, retryAfter: outcome.retryAfter, jitter: Double.random(in: 0...1))
                : nil
            event = .attemptFailed(failure, retryIn: delay, now: .now)
        } else {
            event = .attemptSucceeded
        }
        let action = transition(id, event)
        switch action {
        case .scheduleRetry(let delay)?:
            records[id]?.snapshot.retryDelay = delay
            emit(.stateChanged(records[id]!.snapshot))
            scheduleRetry(id, after: delay)
        case .finish?:
            finished(id)
        default:
            break
        }
        pump()
    }

    private func scheduleRetry(_ id: TaskID, after delay: Duration) {
        let work = DispatchWorkItem { [weak self] in
            guard let self, self.transition(id, .retryDue) != nil else { return }
            self.records[id]?.retryTimer = nil
            self.emit(.stateChanged(self.records[id]!.snapshot))
            self.pump()
        }
        records[id]?.retryTimer = work
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(TimeAmount(delay).nanoseconds)), execute: work)
    }

    private func cancelOnQueue(_ id: TaskID, reason: String) {
        guard let action = transition(id, .cancel(reason: reason)), let record = records[id] else { return }
        record.retryTimer?.cancel()
        record.retryTimer = nil
        if action == .stopAttemptAndFinish { record.attempt?.cancel() }
        record.attempt = nil
        finished(id)
        pump()
    }

    /// Sets a task's dependency state from the dependency's current state.
    private func applyDependency(_ dependency: TaskID, to id: TaskID) {
        let event: UploadTaskStateMachine.Event?
        switch records[dependency]?.snapshot.state {
        case nil: event = .dependencyEnded(reason: "task \(dependency) does not exist")
        case .succeeded?: event = nil
        case .failed(let failure)?: event = .dependencyEnded(reason: "task \(dependency) failed: \(failure)")
        case .cancelled(let reason)?: event = .dependencyEnded(reason: "task \(dependency) was cancelled (\(reason))")
        default:
            event = .dependencyPending(dependency)
            index.dependents[dependency, default: []].append(id)
        }
        guard let event, let action = transition(id, event) else { return }
        if action == .finish { finished(id) } else { emit(.stateChanged(records[id]!.snapshot)) }
    }

    private func finished(_ id: TaskID) {
        guard let record = records[id] else { return }
        record.snapshot.finishedAt = .now
        emit(.finished(record.snapshot))
        deliverOutbox()
        for waiter in waiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: record.snapshot) }
        // Release or cancel the tasks that wait on this one.
        let event: UploadTaskStateMachine.Event
        switch record.snapshot.state {
        case .succeeded: event = .dependencySucceeded
        case .failed(let failure): event = .dependencyEnded(reason: "task \(id) failed: \(failure)")
        default: event = .dependencyEnded(reason: "task \(id) was cancelled")
        }
        for child in index.dependents.removeValue(forKey: id) ?? [] where records[child]?.snapshot.state == .waitingForDependency(id) {
            let action = transition(child, event)
            if action == .finish { finished(child) } else { emit(.stateChanged(records[child]!.snapshot)) }
        }
        if index.unfinished == 0 {
            let waiting = idleWaiters
            idleWaiters = []
            deliverOutbox()
            for waiter in waiting { waiter.resume() }
        }
    }

    private func queueStatus() -> QueueStatus {
        QueueStatus(
            isPaused: paused,
            concurrency: concurrency,
            running: index.running,
            queued: index.queuedCount
        )
    }

    private func emitQueueStatus() {
        emit(.queueChanged(queueStatus()))
    }

    /// Queues an event for the monitors. Events raised during one turn of
    /// the engine queue go out together, one wake-up per monitor rather than
    /// one per event (a small upload raises about eight).
    private func emit(_ event: UploadEvent) {
        guard !monitors.isEmpty else { return }
        outbox.append(event)
        if outbox.count == 1 { queue.async { self.deliverOutbox() } }
    }

    /// Hands the queued events to the monitors, in order. Called before any
    /// waiter is resumed, so a caller that wakes up sees every event so far.
    private func deliverOutbox() {
        guard !outbox.isEmpty else { return }
        let batch = outbox
        outbox = []
        for monitor in monitors {
            let events = batch.allSatisfy(monitor.wants) ? batch : batch.filter(monitor.wants)
            guard !events.isEmpty else { continue }
            monitor.queue.async { for event in events { monitor.handle(event) } }
        }
    }
}
