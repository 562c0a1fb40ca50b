import Dispatch
import Glibc
import UploadEngine

extension JournalRecorder {
    // MARK: - Records (on `queue`)

    func queued(_ task: JournalTask, id: TaskID) {
        let json = encode(task)
        liveBytes += json.count - (tasks[id]?.bytes ?? 0)
        tasks[id] = Entry(task, bytes: json.count)
        append(.queued(task), written: json)
    }

    func append(_ change: JournalRecord.Change, written: [UInt8] = []) {
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
    struct Batch {
        var records: [UInt8]
        /// No task is left to resume (nor a staging area): the journal's files
        /// go, with one sync of the folder, instead of a last record synced now
        /// and the files removed at exit.
        var removesJournal: Bool
        var snapshot: [UInt8]? = nil
    }

    func takePending() -> Batch {
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
    func save(_ batch: Batch) {
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

    func release() {
        guard !held.isEmpty else { return }
        let ready = held.prefix { $0.sequence <= committed }
        held.removeFirst(ready.count)
        for item in ready { pass(item.event) }
    }

    /// On `writer`. A journal that cannot be written is reported once, and
    /// the uploads go on: holding their results back would help no one.
    func save(_ write: () throws(StateFileError) -> Void) {
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
    func pass(_ event: UploadEvent) {
        guard downstream.contains(where: { $0.wants(event) }) else { return }
        outbox.append(event)
        if outbox.count == 1 { queue.async { self.flushOutbox() } }
    }

    func flushOutbox() {
        guard !outbox.isEmpty else { return }
        let batch = outbox
        outbox = []
        downstream.deliver(batch)
    }

    /// The whole journal as a snapshot, including every record so far.
    func document() -> [UInt8] {
        typealias Key = JournalDocument.CodingKeys
        let header: [JSONValue.Member] =
            [
                .init(Key.version.stringValue, .number(String(JournalDocument.currentVersion))),
                .init(Key.command.stringValue, .string(command)),
                .init(Key.pid.stringValue, .number(String(getpid()))),
                .init(Key.sequence.stringValue, .number(String(sequence))),
            ] + (quit ? [.init(Key.quit.stringValue, .bool(true))] : [])
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
}
