import Dispatch
import FoundationEssentials
import Glibc
import UploadEngine

/// Keeps this process's journal in step with the engine, and stands between
/// the engine and the monitors that show results (the output, the history,
/// the screen): a task's end reaches them only once the journal has it on
/// disk, so an answer that was printed is never sent again after a crash.
///
/// Each change is a record appended to the log (`JournalRecord`). Records
/// are committed as they come, with one `fdatasync` for all that arrived
/// while the previous one ran (group commit), on a queue of their own, so
/// the engine and the screen never wait on the disk. When the log has grown
/// past the snapshot, a new snapshot replaces both (compaction).
final class JournalRecorder: UploadEventMonitor, @unchecked Sendable {
    let queue: DispatchQueue
    private let writer = DispatchQueue(label: "hoist.journal.write")
    let store: JournalStore
    private let command: String
    private let report: @Sendable (String) -> Void
    /// Told of every event they want; a task's end only once it is committed.
    private let downstream: [any UploadEventMonitor]

    // Touched only on `queue`.
    /// Each unfinished task. Boxed: inline, 10,000 queued tasks made a
    /// 12 MB table (and its copies as it grew). Their JSON is not kept: a
    /// snapshot encodes them again (see `encode`), which cost less than the
    /// 10 MB the JSON of 10,000 tasks took.
    private var tasks: [TaskID: Entry] = [:]
    private final class Entry {
        var task: JournalTask
        /// Its record's size, for `liveBytes`.
        let bytes: Int
        init(_ task: JournalTask, bytes: Int) {
            self.task = task
            self.bytes = bytes
        }
    }
    /// What a snapshot of the tasks would take, about, and what the log
    /// took since the last one: they decide when to compact.
    private var liveBytes = 0
    private var logBytes = 0
    /// Restored tasks not resumed yet: their files as first queued.
    private var restored: Set<TaskID> = []
    /// The UI's staging area, encoded once, for every snapshot: 10,000
    /// staged files were encoded again at each compaction. Only its hash is
    /// kept besides, to skip an unchanged one: the value itself was 0.8 MB
    /// at 10,000 files, next to the 1.15 MB of its JSON.
    private var workspaceJSON: [UInt8] = Array("null".utf8)
    private var workspaceHash: Int?
    /// The last request encoded without body and label: see `encode`.
    private var lastShell: (request: UploadRequest, members: [JSONValue.Member])?
    private var sequence = 0
    /// The log has its first line, naming this process (see `append`).
    private var opened = false
    /// Records not handed to the writer yet, and the last one's sequence.
    private var pending: [UInt8] = []
    /// Records written ahead of their commit (see `spill`).
    private var spilled = false
    /// Pending records past this size go to the writer at once, to be synced
    /// by the next commit: 10,000 tasks queued together made 21 MB of
    /// pending records, twice over while the buffer grew.
    static let spillSize = 256 << 10
    /// Ends waiting for their record to be committed, with its sequence.
    private var held: [(sequence: Int, event: UploadEvent)] = []
    /// Events to pass on after this turn of the queue, in order.
    private var outbox: [UploadEvent] = []
    /// A commit is scheduled for the end of this turn of the queue.
    private var scheduled = false
    /// The writer is at work on records up to `handedOff`.
    private var writing = false
    private var handedOff = 0
    /// Records up to here are on disk.
    private var committed = 0
    /// The last record the snapshot on disk includes.
    private var snapshotSequence = 0
    private var lastCommit: DispatchTime?
    static let commitInterval = DispatchTimeInterval.milliseconds(10)
    private var stopped = false
    private var warned = false

    /// `report` is told, once, when the journal cannot be written. `target`,
    /// when given, is the thread the recorder shares with other monitors
    /// (its writes and fsyncs keep a queue of their own).
    init(
        store: JournalStore, command: String, target: DispatchQueue? = nil,
        downstream: [any UploadEventMonitor] = [], report: @escaping @Sendable (String) -> Void
    ) {
        self.queue = DispatchQueue(label: "hoist.journal", target: target)
        self.store = store
        self.command = command
        self.downstream = downstream
        self.report = report
    }

    /// Its own events, and what the monitors behind it want. Of the state
    /// changes, a task going back to the queue (retried, or resumed after a
    /// restore) is all the journal records.
    func wants(_ event: UploadEvent) -> Bool {
        switch event {
        case .added, .finished, .checkpoint: return true
        case .stateChanged(let task) where task.state == .queued: return true
        case .stateChanged, .progress, .queueChanged: return downstream.contains { $0.wants(event) }
        }
    }

    func handle(_ event: UploadEvent) {
        guard !stopped else { return pass(event) }
        switch event {
        case .added(let task):
            if tasks[task.id] == nil { queued(JournalTask(task, files: Self.fingerprints(task)), id: task.id) }
        case .stateChanged(let task):
            // Retried after its end, or resumed after a restore: from now on
            // its files are what is sent.
            let leftInterrupted = restored.contains(task.id) && !task.isInterrupted
            if leftInterrupted || (tasks[task.id] == nil && !task.state.isFinished) {
                restored.remove(task.id)
                queued(JournalTask(task, files: Self.fingerprints(task.request)), id: task.id)
            }
        case .checkpoint(let task):
            if let checkpoint = task.checkpoint, let entry = tasks[task.id] {
                entry.task.checkpoint = checkpoint
                append(.checkpoint(id: task.id.rawValue, checkpoint))
            }
        case .finished(let task):
            if let entry = tasks.removeValue(forKey: task.id) {
                liveBytes -= entry.bytes
                restored.remove(task.id)
                append(.finished(id: task.id.rawValue))
                held.append((sequence, event))
                return
            }
        case .progress, .queueChanged:
            break
        }
        pass(event)
    }

    /// The UI's staged files, fields and target, whenever they change.
    func setWorkspace(_ new: JournalWorkspace?) {
        queue.async {
            let new = new?.isEmpty == false ? new : nil
            let hash = new?.hashValue
            guard !self.stopped, hash != self.workspaceHash else { return }
            self.workspaceHash = hash
            self.workspaceJSON = new.flatMap { try? JSONValue(encoding: $0).compactJSONBytes } ?? Array("null".utf8)
            self.append(.workspace(new), written: self.workspaceJSON)
        }
    }

    /// Puts the tasks of dead processes' journals back into `engine`, as
    /// interrupted, keeping their chains and checkpoints, and into this
    /// journal with the files as they were first queued.
    func restore(_ journalTasks: [JournalTask], into engine: UploadEngine) -> RestoreSummary {
        queue.sync {
            var summary = RestoreSummary()
            var ids: [Int: TaskID] = [:]
            for var task in journalTasks {
                let name = task.request.displayName
                guard task.request.body.isReplayable else {
                    summary.lost.append("\(name): \(JournalTask.unreplayable)")
                    continue
                }
                let problem = task.problemNow
                let after = task.after.flatMap { ids[$0] }
                do {
                    let id = try engine.restore(
                        task.request, priority: task.priority, after: after, problem: problem,
                        checkpoint: task.checkpoint)
                    ids[task.id] = id
                    task.id = id.rawValue
                    task.after = after?.rawValue
                    task.problem = problem
                    restored.insert(id)
                    queued(task, id: id)
                    summary.restored += 1
                    if problem != nil { summary.flagged += 1 }
                } catch {
                    summary.lost.append("\(name): \(error)")
                }
            }
            return summary
        }
    }

    /// The restored tasks whose files changed since they were queued, with
    /// why: checked again just before "resume all", since a file may be
    /// touched while the UI is open.
    func changedFiles() -> [TaskID: String] {
        queue.sync {
            var problems: [TaskID: String] = [:]
            for id in restored {
                if let change = tasks[id]?.task.changedFile {
                    problems[id] = change
                }
            }
            return problems
        }
    }

    /// Commits what is pending and waits, then lets every held event
    /// through and waits for the monitors to take it: before an adopted
    /// journal is deleted, and before a run reports its end.
    func sync() {
        queue.sync {
            writer.sync {}
            committed = max(committed, handedOff)
            if !pending.isEmpty || spilled {
                let batch = takePending()
                writer.sync { save(batch) }
                handedOff = sequence
                committed = sequence
            }
            release()
            flushOutbox()
        }
        for monitor in downstream { monitor.queue.sync {} }
    }

    /// Stops recording and leaves the journal as it stands: called before
    /// quitting cancels the unfinished tasks, so that they stay resumable.
    /// With nothing left, the journal and its lock are removed. Later
    /// events only pass through.
    func finish() {
        sync()
        queue.sync {
            guard !stopped else { return }
            stopped = true
            if tasks.isEmpty && workspaceHash == nil {
                writer.sync { store.remove() }
            } else if sequence > snapshotSequence {
                let snapshot = document()
                writer.sync { self.save { () throws(StateFileError) in try self.store.compact(snapshot) } }
            }
        }
    }

    // MARK: - Records (on `queue`)

    private func queued(_ task: JournalTask, id: TaskID) {
        let json = encode(task)
        liveBytes += json.count - (tasks[id]?.bytes ?? 0)
        tasks[id] = Entry(task, bytes: json.count)
        append(.queued(task), written: json)
    }

    private func append(_ change: JournalRecord.Change, written: [UInt8] = []) {
        if !opened {
            opened = true
            pending = JournalRecord.line(sequence: 0, .opened(command: command, pid: getpid()))
        }
        sequence += 1
        let line = JournalRecord.line(sequence: sequence, change, written: written)
        logBytes += line.count
        pending += line
        if pending.count >= Self.spillSize { spill() }
        guard !scheduled else { return }
        scheduled = true
        queue.async { self.commit() }  // after this turn: one commit for all of it
    }

    /// Hands what is pending to the writer, unless it is busy: then what
    /// comes meanwhile goes in the next commit, when this one is on disk.
    /// Commits start at most every `commitInterval`, so that a burst of
    /// small uploads shares its fdatasyncs (1,000 uploads of 16 KiB: 26 to
    /// 108 instead of 883; a result shows at most 10 ms later).
    private func commit() {
        scheduled = false
        guard !writing, !pending.isEmpty || spilled else { return }
        let now = DispatchTime.now()
        if let last = lastCommit, now < last + Self.commitInterval {
            scheduled = true
            queue.asyncAfter(deadline: last + Self.commitInterval) { self.commit() }
            return
        }
        lastCommit = now
        let last = sequence
        var taken = takePending()
        writing = true
        handedOff = last
        if !taken.removesJournal, needsCompaction {
            taken.snapshot = document()
            logBytes = 0
        }
        let batch = taken
        writer.async {
            self.save(batch)
            self.queue.async {
                self.writing = false
                self.committed = max(self.committed, last)
                if batch.snapshot != nil || batch.removesJournal { self.snapshotSequence = last }
                self.release()
                self.flushOutbox()
                self.commit()
            }
        }
    }

    /// What one commit writes.
    private struct Batch {
        var records: [UInt8]
        /// No task is left to resume (nor a staging area): the journal's files
        /// go, with one sync of the folder, instead of a last record synced now
        /// and the files removed at exit.
        var removesJournal: Bool
        var snapshot: [UInt8]? = nil
    }

    private func takePending() -> Batch {
        let batch = Batch(records: pending, removesJournal: tasks.isEmpty && workspaceHash == nil)
        pending = []
        spilled = false
        if batch.removesJournal {
            opened = false  // a later record starts a new log
            logBytes = 0
        }
        return batch
    }

    /// On `writer`.
    private func save(_ batch: Batch) {
        save { () throws(StateFileError) in
            if batch.removesJournal { return store.clear() }
            try store.append(batch.records)
            if let snapshot = batch.snapshot { try store.compact(snapshot) }
        }
    }

    /// Hands the pending records to the writer without a sync (the writer
    /// keeps their order; the next commit syncs them with its own).
    private func spill() {
        let bytes = pending
        pending = []
        spilled = true
        writer.async { self.save { () throws(StateFileError) in try self.store.write(bytes) } }
    }

    /// A new snapshot once the log is four times what it would take (the
    /// tasks and the staging area): a finished task's record is small, so
    /// 10,000 tasks queued at once and sent are written again about once,
    /// when three quarters are done (twice the records, the rule before,
    /// rewrote them about twice).
    private var needsCompaction: Bool {
        logBytes > 256 << 10 && logBytes > 4 * (liveBytes + workspaceJSON.count)
    }

    private func release() {
        guard !held.isEmpty else { return }
        let ready = held.prefix { $0.sequence <= committed }
        held.removeFirst(ready.count)
        for item in ready { pass(item.event) }
    }

    /// On `writer`. A journal that cannot be written is reported once, and
    /// the uploads go on: holding their results back would help no one.
    private func save(_ write: () throws(StateFileError) -> Void) {
        do {
            try write()
        } catch {
            queue.async {
                guard !self.warned else { return }
                self.warned = true
                self.report("journal not written, so unfinished uploads would not survive a crash: \(error)")
            }
        }
    }

    /// Passes an event on, in order; the batch goes out after this turn.
    private func pass(_ event: UploadEvent) {
        guard downstream.contains(where: { $0.wants(event) }) else { return }
        outbox.append(event)
        if outbox.count == 1 { queue.async { self.flushOutbox() } }
    }

    private func flushOutbox() {
        guard !outbox.isEmpty else { return }
        let batch = outbox
        outbox = []
        downstream.deliver(batch)
    }

    /// The whole journal as a snapshot, including every record so far.
    private func document() -> [UInt8] {
        typealias Key = JournalDocument.CodingKeys
        let header: [JSONValue.Member] = [
            .init(Key.version.stringValue, .number(String(JournalDocument.currentVersion))),
            .init(Key.command.stringValue, .string(command)),
            .init(Key.pid.stringValue, .number(String(getpid()))),
            .init(Key.sequence.stringValue, .number(String(sequence))),
        ]
        let tasks = self.tasks.keys.sorted().lazy.map { self.encode(self.tasks[$0]!.task) }
        return JSONValue.compactJSONBytes(
            header, written: [(Key.workspace.stringValue, workspaceJSON)], thenArrayAt: Key.tasks.stringValue,
            ofWritten: tasks) + [
                UInt8(ascii: "\n")
            ]
    }

    /// A task's JSON, as `JSONDecoder` reads it back into a `JournalTask`
    /// (the journal tests adopt what `hoist send` wrote). The tasks of one
    /// batch differ in their bodies, files and labels only, so the rest of
    /// their request goes through the Encoder once: compared with the last
    /// one, which for copies of one request compares shared storage, not
    /// contents.
    private func encode(_ task: JournalTask) -> [UInt8] {
        var shell = task.request
        shell.body = .json([])
        shell.label = nil
        if lastShell?.request != shell {
            guard case .object(let members)? = try? JSONValue(encoding: shell) else { return [] }
            lastShell = (shell, members)
        }
        typealias Key = JournalTask.CodingKeys
        guard let members = lastShell?.members,
            let body = task.request.body.encodedJSON ?? (try? JSONValue(encoding: task.request.body))
        else { return [] }
        let files = JSONValue.array(task.files.map(\.encodedJSON))
        var request = members.map { $0.key == "body" ? JSONValue.Member("body", body) : $0 }
        if let label = task.request.label { request.append(.init("label", .string(label))) }
        var wrapper: [JSONValue.Member] = [.init(Key.id.stringValue, .number(String(task.id)))]
        if let after = task.after { wrapper.append(.init(Key.after.stringValue, .number(String(after)))) }
        wrapper.append(.init(Key.priority.stringValue, .number(String(task.priority.rawValue))))
        wrapper.append(.init(Key.request.stringValue, .object(request)))
        wrapper.append(.init(Key.files.stringValue, files))
        if let problem = task.problem { wrapper.append(.init(Key.problem.stringValue, .string(problem))) }
        if let checkpoint = task.checkpoint, let json = try? JSONValue(encoding: checkpoint) {
            wrapper.append(.init(Key.checkpoint.stringValue, json))
        }
        return JSONValue.object(wrapper).compactJSONBytes
    }

    private static func fingerprints(_ request: UploadRequest) -> [JournalFile] {
        request.body.filePaths.compactMap(JournalFile.init(path:))
    }

    /// A task just added: its files as the engine checked them, not stat'ed again.
    private static func fingerprints(_ task: TaskSnapshot) -> [JournalFile] {
        let paths = task.request.body.filePaths
        guard let snapshots = task.fileSnapshots, snapshots.count == paths.count else {
            return fingerprints(task.request)
        }
        return zip(paths, snapshots).map { JournalFile(path: $0, snapshot: $1) }
    }
}

/// What came back from dead processes' journals.
struct RestoreSummary: Sendable, Equatable {
    var restored = 0
    /// Restored but left alone by "resume all": a file vanished or changed.
    var flagged = 0
    /// Tasks that cannot be resumed, with why.
    var lost: [String] = []
}
