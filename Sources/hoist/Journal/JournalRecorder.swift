import Dispatch
import FoundationEssentials
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
    let writer = DispatchQueue(label: "hoist.journal.write")
    let store: JournalStore
    let command: String
    let report: @Sendable (String) -> Void
    /// Told of every event they want; a task's end only once it is committed.
    let downstream: [any UploadEventMonitor]

    // Touched only on `queue`.
    /// Each unfinished task. Boxed: inline, 10,000 queued tasks made a
    /// 12 MB table (and its copies as it grew). Their JSON is not kept: a
    /// snapshot encodes them again (see `encode`), which cost less than the
    /// 10 MB the JSON of 10,000 tasks took.
    var tasks: [TaskID: Entry] = [:]
    final class Entry {
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
    var liveBytes = 0
    var logBytes = 0
    /// Restored tasks not resumed yet: their files as first queued.
    private var restored: Set<TaskID> = []
    /// The UI's staging area, encoded once, for every snapshot: 10,000
    /// staged files were encoded again at each compaction. Only its hash is
    /// kept besides, to skip an unchanged one: the value itself was 0.8 MB
    /// at 10,000 files, next to the 1.15 MB of its JSON.
    var workspaceJSON: [UInt8] = Array("null".utf8)
    var workspaceHash: Int?
    /// The last request encoded without body and label: see `encode`.
    var lastShell: (request: UploadRequest, members: [JSONValue.Member])?
    var sequence = 0
    /// The log has its first line, naming this process (see `append`).
    var opened = false
    /// Records not handed to the writer yet, and the last one's sequence.
    var pending: [UInt8] = []
    /// Records written ahead of their commit (see `spill`).
    var spilled = false
    /// Pending records past this size go to the writer at once, to be synced
    /// by the next commit: 10,000 tasks queued together made 21 MB of
    /// pending records, twice over while the buffer grew.
    static let spillSize = 256 << 10
    /// Ends waiting for their record to be committed, with its sequence.
    var held: [(sequence: Int, event: UploadEvent)] = []
    /// Events to pass on after this turn of the queue, in order.
    var outbox: [UploadEvent] = []
    /// A commit is scheduled for the end of this turn of the queue.
    var scheduled = false
    /// The writer is at work on records up to `handedOff`.
    var writing = false
    var handedOff = 0
    /// Records up to here are on disk.
    var committed = 0
    /// The last record the snapshot on disk includes.
    var snapshotSequence = 0
    var lastCommit: DispatchTime?
    static let commitInterval = DispatchTimeInterval.milliseconds(10)
    private var stopped = false
    /// Set by `finish(quit: true)`: the snapshot says the UI was quit with `q`.
    var quit = false
    var warned = false

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
            // Kept for `hoist resume`, paused, or stopped by a quit or a
            // signal: it stays unfinished here, with its checkpoint.
            if !HistoryRecorder.goesOnLater(task), let entry = tasks.removeValue(forKey: task.id) {
                liveBytes -= entry.bytes
                restored.remove(task.id)
                append(.finished(id: task.id.rawValue))
                held.append((sequence, event))
                return
            }
        case .progress, .queueChanged:
            break
        }
        // Behind an end held for its commit, in order: the next task's start
        // passed on first made the screen count more running than slots.
        if held.isEmpty { pass(event) } else { held.append((sequence, event)) }
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
                    summary.ids.append(RestoredID(journal: task.id, task: id))
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
    /// events only pass through. `quit`: the user quit the UI, so its staged
    /// files wait for the same target (`JournalDocument.quit`).
    func finish(quit: Bool = false) {
        sync()
        queue.sync {
            guard !stopped else { return }
            stopped = true
            self.quit = quit && workspaceHash != nil
            if tasks.isEmpty && workspaceHash == nil {
                writer.sync { store.remove() }
            } else if sequence > snapshotSequence || self.quit {
                let snapshot = document()
                writer.sync { self.save { () throws(StateFileError) in try self.store.compact(snapshot) } }
            }
        }
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
    /// Each restored task: its id in the journal it came from, and in this engine.
    var ids: [RestoredID] = []
}

struct RestoredID: Sendable, Hashable {
    var journal: Int
    var task: TaskID
    /// The process whose journal it was (set by the adoption).
    var pid: Int32 = 0
}
