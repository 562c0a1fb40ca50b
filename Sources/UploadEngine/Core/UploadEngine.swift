import Dispatch
import FormData
import FoundationEssentials
import Glibc
import NIOConcurrencyHelpers

/// Queues uploads and runs them over AsyncHTTPClient: a concurrency limit,
/// priorities, dedupe, dependencies, pause/resume, cancel and retry.
///
/// One serial DispatchQueue owns all scheduling state; transport callbacks
/// hop onto it, and events go out on each monitor's own queue.
public final class UploadEngine: @unchecked Sendable {
    let queue = DispatchQueue(label: "hoist.upload-engine")
    let transport: HTTPTransport
    let monitors: [any UploadEventMonitor]
    // State below is touched only on `queue`.
    var records: [TaskID: TaskRecord] = [:]
    /// See `Configuration.keepsFinishedTasks`.
    let keepsFinishedTasks: Bool
    let keepsUnreachableUploads: Bool
    /// Finished tasks to forget after this turn of the queue (so that
    /// what follows a finish in the same turn, a tus DELETE say, still
    /// finds the record), and the counts of those forgotten.
    var finishedToForget: [TaskID] = []
    var forgotten = Tally()
    /// Indexes kept in step with the tasks' states by `transition`, so no
    /// event scans every task (1,000 tasks must cost what 10 do).
    var index = SchedulerIndex()
    /// Who waits for whom, told by `applyDependency`, `transition` and `finished`.
    var dependencies = TaskDependencyStateMachine()
    var nextID = 1
    /// Requests at once, over all tasks: an S3 upload's parts count too.
    var concurrency: Int
    /// Running S3 multipart uploads, in the order they started: each may
    /// have parts beyond its first slot on the wire.
    /// Running tasks whose drivers may take more than one request slot, oldest first.
    var tasksSharingSlots: [TaskID] = []
    var paused = false
    /// Set while a batch of tasks is cancelled: nothing starts until it is done.
    var holdingStarts = false
    var waiters: [TaskID: [CheckedContinuation<TaskSnapshot?, Never>]] = [:]
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Exchanges that clean up on the server once a task ended (a tus
    /// `DELETE`, an S3 `AbortMultipartUpload`): `shutdown` waits for them,
    /// so a process that ends right after a failure still sends them.
    let cleanups = DispatchGroup()
    var outbox: [UploadEvent] = []
    /// Where S3 credentials are looked up when an attempt starts.
    let environment: [String: String]
    /// Where prepared images go (`UploadEngine+Images.swift`), made on first use.
    var madeImageFolder: Result<String, ImagePrepError>?
    /// Tasks whose images are being prepared, ahead of their start or in their slot.
    var preparingImages: Set<TaskID> = []
    /// Set once a task asks for images to be prepared: only then does `pump` look ahead.
    var preparesImages = false
    /// What each kind's tasks share, by kind (`shared`).
    var kindStates: [String: AnyObject] = [:]

    public init(configuration: Configuration = Configuration(), monitors: [any UploadEventMonitor] = []) {
        self.concurrency = max(1, configuration.concurrency)
        self.keepsFinishedTasks = configuration.keepsFinishedTasks
        self.keepsUnreachableUploads = configuration.keepsUnreachableUploads
        self.monitors = monitors
        self.environment = configuration.environment
        self.transport = HTTPTransport(
            insecure: configuration.insecure,
            responseBodyCap: configuration.responseBodyCap,
            environment: configuration.environment,
            fileSending: configuration.fileSending,
            digestsSentFiles: configuration.digestsSentFiles,
            trace: configuration.trace
        )
        transport.limiter.bytesPerSecond = configuration.limitRate
    }

    /// Sets up ahead, on the calling thread, what the first upload would:
    /// for a command that can parse its arguments on another core meanwhile.
    public static func prewarm() {
        HTTPTransport.prewarm()
    }

    // MARK: - Adding and controlling tasks

    /// Queues an upload. The URL and every file are checked first, so bad
    /// input throws here and nothing is sent. An identical upload that is
    /// already queued or running is not added again: its id is returned.
    ///
    /// With `dependency`, the task starts only after that task succeeded, and
    /// is cancelled if it fails or is cancelled.
    @discardableResult
    public func add(
        _ request: UploadRequest, priority: TaskPriority = .normal, after dependency: TaskID? = nil
    ) throws(UploadFailure) -> TaskID {
        let body = try Self.prepare(request)
        return queue.sync { insert(request, body: Encoded(body), priority: priority, dependency: dependency) }
    }

    /// Queues several uploads in order, as `add` does each, but checks every
    /// URL and file first (files on all cores) and adds nothing when one is
    /// bad: a bad URL throws first, then the first bad file. `after[i]`,
    /// when set, is the index of an earlier request of the batch that
    /// request `i` waits for. One hop to the engine's queue for the whole
    /// batch, and one batch of events.
    @discardableResult
    public func add(
        batch requests: [UploadRequest], after: [Int?] = [], priority: TaskPriority = .normal
    ) throws(UploadFailure) -> [TaskID] {
        // A batch usually goes to one URL: checked once, not once per request.
        var checked: Set<String> = []
        for request in requests where checked.insert(request.url).inserted {
            _ = try HTTPTransport.validate(url: request.url)
        }
        let bodies = NIOLockedValueBox<[Result<Encoded, UploadFailure>?]>(
            Array(repeating: nil, count: requests.count))
        DispatchQueue.concurrentPerform(iterations: requests.count) { index in
            let result = Result { () throws(UploadFailure) -> Encoded in
                Encoded(try Self.encode(requests[index]), keeping: index < Self.preparedAhead)
            }
            bodies.withLockedValue { $0[index] = result }
        }
        var prepared: [Encoded] = []
        prepared.reserveCapacity(requests.count)
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

    /// A body as `add` checked it: its length, and the body itself while
    /// it is among the first `preparedAhead`.
    struct Encoded {
        var contentLength: Int64?
        var body: RequestBody?
        /// Its files as checked, for the `.added` event.
        var fileSnapshots: [FileSnapshot]

        init(_ body: RequestBody, keeping: Bool = true) {
            contentLength = body.contentLength
            self.body = keeping ? body : nil
            fileSnapshots = body.segments.compactMap { segment in
                switch segment {
                case .file(let region), .base64(let region): region.snapshot
                case .bytes, .stream: nil
                }
            }
        }
    }

    /// Queued tasks that keep the body `add` encoded, so that their start
    /// skips encoding it again; the rest are encoded when they start (a
    /// stat, an open and a few headers), instead of holding 900 bytes each
    /// while they wait: 10,000 queued files held 9 MB. With 256, 1,000
    /// small uploads took 13% more CPU.
    static let preparedAhead = 1024

    /// On `queue`.
    private func insert(
        _ request: UploadRequest, body: Encoded, priority: TaskPriority, dependency: TaskID?
    ) -> TaskID {
        let dedupeHash = DedupeKey.hash(request)
        if let existing = index.active[dedupeHash], let other = records[existing],
            DedupeKey.same(other.snapshot.request, request)
        {
            return existing
        }
        let id = TaskID(nextID)
        nextID += 1
        if request.preparesImages { preparesImages = true }
        let record = TaskRecord(
            snapshot: TaskSnapshot(
                id: id, request: request, priority: priority, dependency: dependency, state: .queued,
                progress: UploadProgress(totalBytes: body.contentLength), attempts: 0, response: nil,
                answeredEarly: false, addedAt: .now, startedAt: nil, finishedAt: nil),
            sequence: id.rawValue,
            dedupeHash: dedupeHash,
            prepared: index.queuedCount < Self.preparedAhead ? body.body : nil
        )
        records[id] = record
        index.added(id, priority: priority, sequence: record.sequence, dedupeHash: dedupeHash)
        var added = record.snapshot
        added.fileSnapshots = body.fileSnapshots
        emit(.added(added))
        if let dependency {
            applyDependency(dependency, to: id)
        }
        pump()
        return id
    }

    /// Puts back a task that an earlier run did not finish, as `.interrupted`:
    /// it is listed but not started until `resumeInterrupted()` (when
    /// `problem` is nil) or `retry`. Files are not checked here; a file that
    /// is gone fails the attempt that needs it, with the usual error. A
    /// resumable transfer goes on from `checkpoint`.
    @discardableResult
    public func restore(
        _ request: UploadRequest, priority: TaskPriority = .normal, after dependency: TaskID? = nil,
        problem: String? = nil, checkpoint: TransferCheckpoint? = nil
    ) throws(UploadFailure) -> TaskID {
        _ = try HTTPTransport.validate(url: request.url)
        let total = try? request.body.encode().contentLength
        return queue.sync {
            let id = TaskID(nextID)
            nextID += 1
            if request.preparesImages { preparesImages = true }
            let state = TaskState.interrupted(problem: problem)
            var snapshot = TaskSnapshot(
                id: id, request: request, priority: priority, dependency: dependency, state: state,
                progress: UploadProgress(bytesSent: checkpoint?.offset ?? 0, totalBytes: total), addedAt: .now)
            snapshot.checkpoint = checkpoint
            let record = TaskRecord(
                snapshot: snapshot,
                sequence: id.rawValue,
                dedupeHash: DedupeKey.hash(request),
                prepared: nil  // built when it starts: its files may have changed
            )
            record.machine = UploadTaskStateMachine(state: state)
            records[id] = record
            index.added(
                id, state: state, priority: priority, sequence: record.sequence, dedupeHash: record.dedupeHash)
            emit(.added(record.snapshot))
            return id
        }
    }

    /// Queues every interrupted task that has no problem, in the order they
    /// were restored, with their dependencies. Returns how many were queued.
    /// `changed` are found to have a problem now (a file touched since it
    /// was restored): they are flagged instead.
    @discardableResult
    public func resumeInterrupted(flagging changed: [TaskID: String] = [:]) -> Int {
        queue.sync {
            for (id, problem) in changed.sorted(by: { $0.key < $1.key })
            where transition(id, .flag(problem: problem)) != nil {
                emit(.stateChanged(records[id]!.snapshot))
            }
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

    // MARK: - Reading state

    public func snapshot(_ id: TaskID) -> TaskSnapshot? {
        queue.sync { records[id]?.snapshot }
    }

    /// All tasks, in the order they were added.
    public func snapshots() -> [TaskSnapshot] {
        queue.sync { records.values.sorted { $0.snapshot.id < $1.snapshot.id }.map(\.snapshot) }
    }

    public var status: QueueStatus { queue.sync { queueStatus() } }

    /// How the tasks stand, counted where they are: 10,000 finished tasks
    /// are not copied out to be counted.
    public struct Tally: Sendable, Hashable {
        /// Not finished, or cancelled as interrupted (what a journal keeps).
        public var unfinished = 0
        public var succeeded = 0
        public var total = 0

        mutating func count(_ state: TaskState) {
            total += 1
            if state == .succeeded { succeeded += 1 }
            if !state.isFinished || state == .cancelled(reason: UploadEngine.interruptedReason) { unfinished += 1 }
        }
    }

    public func tally() -> Tally {
        queue.sync {
            var tally = forgotten
            for record in records.values { tally.count(record.snapshot.state) }
            return tally
        }
    }

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

    /// Returns once the engine's queue has run everything submitted to it
    /// before the call (and what that work submitted right away, such as
    /// event delivery). Tests check that something did not happen with it,
    /// instead of sleeping.
    func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { self.queue.async { continuation.resume() } }
        }
    }

    /// Cancels everything and closes the HTTP clients.
    public func shutdown() async {
        cancelAll(reason: "the engine shut down")
        await waitUntilIdle()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                // Bounded: a server that never answers does not hold the exit.
                _ = self.cleanups.wait(timeout: .now() + .seconds(10))
                continuation.resume()
            }
        }
        await transport.shutdown()
        queue.sync { if case .success(let folder)? = madeImageFolder { rmdir(folder) } }
    }
}
