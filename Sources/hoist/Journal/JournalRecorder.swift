import Dispatch
import Foundation
import UploadEngine

/// Keeps this process's journal in step with the engine: a task is in it
/// from the moment it is added until it finishes, and the UI's staging area
/// is in it too. What could be lost (a new task, a staging change) is written
/// within about 20 ms. Finished tasks are found by asking the engine once a
/// second (not by an event per task, which costs a thread wake-up each) and
/// leave the journal then: missing that only means a task could be sent
/// twice, never lost. Writes are coalesced and run on a queue of their own,
/// so fsync never holds up the engine or the screen.
final class JournalRecorder: UploadEventMonitor, @unchecked Sendable {
    let queue: DispatchQueue
    private let writer = DispatchQueue(label: "hoist.journal.write")
    let store: JournalStore
    private let command: String
    private let report: @Sendable (String) -> Void
    // Touched only on `queue`.
    /// Each unfinished task's JSON, encoded once when it is added.
    private var tasks: [TaskID: [UInt8]] = [:]
    /// Restored tasks, with the files as they were when first queued.
    private var restored: [TaskID: JournalTask] = [:]
    private var workspace: JournalWorkspace?
    /// The last request encoded without body and label: see `encode`.
    private var lastShell: (request: UploadRequest, members: [JSONValue.Member])?
    private var dirty = false
    /// When the next write is due, if one is scheduled.
    private var due: DispatchTime?
    private var writing = false
    private var urgentWhileWriting = false
    private var stopped = false
    private var warned = false
    /// Asks the engine which tasks are unfinished; set by `attach`.
    private var unfinished: (@Sendable (Set<TaskID>) -> Set<TaskID>)?

    /// `report` is told, once, when the journal cannot be written. `target`,
    /// when given, is the thread the recorder shares with other monitors
    /// (its writes and fsyncs keep a queue of their own).
    init(
        store: JournalStore, command: String, target: DispatchQueue? = nil,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.queue = DispatchQueue(label: "hoist.journal", target: target)
        self.store = store
        self.command = command
        self.report = report
    }

    /// The engine this journal follows, for pruning finished tasks.
    func attach(_ engine: UploadEngine) {
        queue.sync { unfinished = { [weak engine] ids in engine?.unfinished(among: ids) ?? ids } }
    }

    /// Adds, and the moves out of `.interrupted` (resume, retry), which
    /// happen before a first attempt: no progress, no attempts. Finished
    /// tasks are pruned by asking the engine (see `attach`).
    func wants(_ event: UploadEvent) -> Bool {
        switch event {
        case .added: return true
        case .stateChanged(let task): return task.attempts == 0
        case .finished, .progress, .checkpoint, .queueChanged: return false
        }
    }

    func handle(_ event: UploadEvent) {
        guard !stopped else { return }
        switch event {
        case .added(let task):
            guard tasks[task.id] == nil else { return }  // restored: already in
            tasks[task.id] = encode(JournalTask(task, files: Self.fingerprints(task.request)))
        case .stateChanged(let task):
            // Resumed or retried on purpose: from now on the files are what is sent.
            guard restored[task.id] != nil, !isInterrupted(task.state) else { return }
            restored[task.id] = nil
            tasks[task.id] = encode(JournalTask(task, files: Self.fingerprints(task.request)))
        case .finished, .progress, .checkpoint, .queueChanged:
            return  // not asked for: finished tasks are pruned by `prune`
        }
        changed(urgent: true)
    }

    /// The UI's staged files, fields and target, whenever they change.
    func setWorkspace(_ new: JournalWorkspace?) {
        queue.async {
            let new = new?.isEmpty == false ? new : nil
            guard !self.stopped, new != self.workspace else { return }
            self.workspace = new
            self.changed(urgent: true)
        }
    }

    /// Puts the tasks of dead processes' journals back into `engine`, as
    /// interrupted, keeping their chains, and into this journal with the
    /// files as they were first queued (their `.added` events come later).
    func restore(_ journalTasks: [JournalTask], into engine: UploadEngine) -> RestoreSummary {
        queue.sync {
            var summary = RestoreSummary()
            var ids: [Int: TaskID] = [:]
            for var task in journalTasks {
                let name = task.request.displayName
                guard task.request.body.isReplayable else {
                    summary.lost.append("\(name): it read standard input or a pipe, which cannot be read again")
                    continue
                }
                let problem = task.problem ?? task.files.lazy.compactMap { $0.change() }.first
                let after = task.after.flatMap { ids[$0] }
                do {
                    let id = try engine.restore(task.request, priority: task.priority, after: after, problem: problem)
                    ids[task.id] = id
                    task.id = id.rawValue
                    task.after = after?.rawValue
                    task.problem = problem
                    restored[id] = task
                    tasks[id] = encode(task)
                    changed(urgent: true)
                    summary.restored += 1
                    if problem != nil { summary.flagged += 1 }
                } catch {
                    summary.lost.append("\(name): \(error)")
                }
            }
            return summary
        }
    }

    /// Writes what is pending now and waits for it: before an adopted
    /// journal is deleted, its tasks must be safe in this one.
    func sync() {
        queue.sync {
            writer.sync {}
            prune()
            guard dirty, !stopped else { return }
            dirty = false
            let (bytes, empty) = document()
            writer.sync { save(bytes, empty: empty) }
        }
    }

    /// Stops listening and leaves the journal as it stands: called before
    /// quitting cancels the unfinished tasks, so that they stay resumable.
    /// With nothing left, the journal and its lock are removed.
    func finish() {
        queue.sync {
            guard !stopped else { return }
            prune()
            stopped = true
            let (bytes, empty) = document()
            writer.sync {
                if empty { store.remove() } else { save(bytes, empty: false) }
            }
        }
    }

    // MARK: - Writing (on `queue`)

    /// Schedules a write: soon when `urgent`, else within a second. With
    /// `dirty` false it only schedules a look for finished tasks.
    private func changed(urgent: Bool, dirty: Bool = true) {
        if dirty { self.dirty = true }
        guard !writing else {
            urgentWhileWriting = urgentWhileWriting || urgent
            return  // the write under way schedules the next when it is done
        }
        let when = DispatchTime.now() + (urgent ? .milliseconds(20) : .seconds(1))
        if let due, due <= when { return }
        due = when
        queue.asyncAfter(deadline: when) { self.writePending(dueAt: when) }
    }

    /// Drops the tasks the engine has finished since the last look.
    private func prune() {
        guard let unfinished, !tasks.isEmpty else { return }
        let live = unfinished(Set(tasks.keys))
        guard live.count < tasks.count else { return }
        tasks = tasks.filter { live.contains($0.key) }
        restored = restored.filter { live.contains($0.key) }
        dirty = true
    }

    private func writePending(dueAt when: DispatchTime) {
        guard due == when else { return }  // an earlier write took its place
        due = nil
        prune()
        guard dirty, !stopped else {
            if !tasks.isEmpty, !stopped { changed(urgent: false, dirty: false) }  // look again in a second
            return
        }
        dirty = false
        writing = true
        let (bytes, empty) = document()
        writer.async {
            self.save(bytes, empty: empty)
            self.queue.async {
                self.writing = false
                let urgent = self.urgentWhileWriting
                self.urgentWhileWriting = false
                if self.dirty || !self.tasks.isEmpty { self.changed(urgent: urgent, dirty: self.dirty) }
            }
        }
    }

    /// On `writer`.
    private func save(_ bytes: [UInt8], empty: Bool) {
        do {
            if empty { store.clear() } else { try store.write(bytes) }
        } catch {
            queue.async {
                guard !self.warned else { return }
                self.warned = true
                self.report("journal not written, so unfinished uploads would not survive a crash: \(error)")
            }
        }
    }

    /// The whole journal, with the tasks as they were written when added.
    private func document() -> (bytes: [UInt8], empty: Bool) {
        typealias Key = JournalDocument.CodingKeys
        let header: [JSONValue.Member] = [
            .init(Key.version.stringValue, .number(String(JournalDocument.currentVersion))),
            .init(Key.command.stringValue, .string(command)),
            .init(Key.pid.stringValue, .number(String(getpid()))),
            .init(Key.workspace.stringValue, workspace.flatMap { try? JSONValue(encoding: $0) } ?? .null),
        ]
        let tasks = self.tasks.keys.sorted().lazy.map { self.tasks[$0]! }
        let bytes = JSONValue.compactJSONBytes(header, thenArrayAt: Key.tasks.stringValue, ofWritten: tasks)
        return (bytes + [UInt8(ascii: "\n")], self.tasks.isEmpty && workspace == nil)
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
        guard let members = lastShell?.members, let body = try? JSONValue(encoding: task.request.body),
            let files = try? JSONValue(encoding: task.files)
        else { return [] }
        var request = members.map { $0.key == "body" ? JSONValue.Member("body", body) : $0 }
        if let label = task.request.label { request.append(.init("label", .string(label))) }
        var wrapper: [JSONValue.Member] = [.init(Key.id.stringValue, .number(String(task.id)))]
        if let after = task.after { wrapper.append(.init(Key.after.stringValue, .number(String(after)))) }
        wrapper.append(.init(Key.priority.stringValue, .number(String(task.priority.rawValue))))
        wrapper.append(.init(Key.request.stringValue, .object(request)))
        wrapper.append(.init(Key.files.stringValue, files))
        if let problem = task.problem { wrapper.append(.init(Key.problem.stringValue, .string(problem))) }
        return JSONValue.object(wrapper).compactJSONBytes
    }

    private func isInterrupted(_ state: TaskState) -> Bool {
        if case .interrupted = state { return true }
        return false
    }

    private static func fingerprints(_ request: UploadRequest) -> [JournalFile] {
        request.body.filePaths.compactMap(JournalFile.init(path:))
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
