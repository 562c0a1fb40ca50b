import FormData
import FoundationEssentials
import TerminalUI
import UploadEngine
import UploadPlan

/// What one hoist process has not finished, as its journal's snapshot
/// holds it: every task not yet finished, and (for the UI) the staged files,
/// fields and target. A later hoist adopts it when this process is gone,
/// after replaying the log written since (`replay(log:)`).
struct JournalDocument: Codable, Sendable {
    /// 2 added the log and `sequence`; 1 was a snapshot alone.
    static let currentVersion = 2
    static let readableVersions = [1, 2]

    var version = JournalDocument.currentVersion
    /// `tui` or `send`: who wrote it, for the notice on adoption.
    var command: String
    var pid: Int32
    /// The last log record the snapshot includes.
    var sequence = 0
    var tasks: [JournalTask] = []
    var workspace: JournalWorkspace?
    /// The UI that wrote it was quit with `q`: its staged files come back only
    /// to a UI opened on the same target (issue 37 #5). A crash, a signal or
    /// an older hoist leaves it false, and they come back to the next UI.
    var quit = false

    init(command: String, pid: Int32) {
        self.command = command
        self.pid = pid
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        command = try container.decode(String.self, forKey: .command)
        pid = try container.decode(Int32.self, forKey: .pid)
        sequence = try container.decodeIfPresent(Int.self, forKey: .sequence) ?? 0
        tasks = try container.decode([JournalTask].self, forKey: .tasks)
        workspace = try container.decodeIfPresent(JournalWorkspace.self, forKey: .workspace)
        quit = try container.decodeIfPresent(Bool.self, forKey: .quit) ?? false
    }

    /// Named: `JournalRecorder.document` writes these keys itself.
    enum CodingKeys: String, CodingKey {
        case version, command, pid, sequence, tasks, workspace, quit
    }

    /// Applies the log's records that the snapshot does not include yet. A
    /// last record cut short (the process died while appending it) was never
    /// committed and is ignored; a bad record before it is an error.
    mutating func replay(log: Data) throws {
        // What follows the last newline was cut short: it was never committed.
        let lines = log.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast()
        let decoder = JSONDecoder()
        for (index, line) in zip(lines.indices, lines) where !line.isEmpty {
            let record: JournalRecord
            do {
                record = try decoder.decode(JournalRecord.self, from: Data(Array(line)))
            } catch {
                // A bad last line is taken for one torn inside; before it, the journal is broken.
                if lines[(index + 1)...].allSatisfy(\.isEmpty) { break }
                throw error
            }
            if case .opened(let command, let pid) = record.change {
                self.command = command
                self.pid = pid
                continue
            }
            guard record.sequence > sequence else { continue }
            apply(record)
        }
    }

    mutating func apply(_ record: JournalRecord) {
        sequence = record.sequence
        switch record.change {
        case .queued(let task):
            if let at = tasks.firstIndex(where: { $0.id == task.id }) { tasks[at] = task } else { tasks.append(task) }
        case .checkpoint(let id, let checkpoint):
            if let at = tasks.firstIndex(where: { $0.id == id }) { tasks[at].checkpoint = checkpoint }
        case .finished(let id):
            tasks.removeAll { $0.id == id }
        case .workspace(let staged):
            workspace = staged
        case .opened:
            break
        }
    }
}

/// One line of the journal's log: what happened to a task, in order.
struct JournalRecord: Decodable, Sendable {
    enum Change: Sendable {
        /// The log's first line: who writes it (the snapshot says so too).
        case opened(command: String, pid: Int32)
        /// Added, retried or resumed: its request and files as they are now.
        case queued(JournalTask)
        /// A resumable transfer got this far.
        case checkpoint(id: Int, TransferCheckpoint)
        /// Its result was final (sent, failed or cancelled): never sent again.
        case finished(id: Int)
        /// The UI's staging area changed.
        case workspace(JournalWorkspace?)
    }

    var sequence: Int
    var change: Change

    init(sequence: Int, change: Change) {
        self.sequence = sequence
        self.change = change
    }

    enum CodingKeys: String, CodingKey {
        case seq, queued, checkpoint, finished, workspace, id, opened
    }

    private struct Opened: Codable {
        var command: String
        var pid: Int32
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int.self, forKey: .seq)
        if let task = try container.decodeIfPresent(JournalTask.self, forKey: .queued) {
            change = .queued(task)
        } else if let checkpoint = try container.decodeIfPresent(TransferCheckpoint.self, forKey: .checkpoint) {
            change = .checkpoint(id: try container.decode(Int.self, forKey: .id), checkpoint)
        } else if let id = try container.decodeIfPresent(Int.self, forKey: .finished) {
            change = .finished(id: id)
        } else if let opened = try container.decodeIfPresent(Opened.self, forKey: .opened) {
            change = .opened(command: opened.command, pid: opened.pid)
        } else if container.contains(.workspace) {
            change = .workspace(try container.decodeIfPresent(JournalWorkspace.self, forKey: .workspace))
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "a journal record of no known kind"))
        }
    }

    /// The record as one line, with a task's JSON as `JournalRecorder` encoded it.
    /// `written` is the JSON of a queued task or of a workspace, spliced in
    /// as it was written: each is encoded once.
    static func line(sequence: Int, _ change: Change, written: [UInt8] = []) -> [UInt8] {
        var members: [JSONValue.Member] = [.init(CodingKeys.seq.stringValue, .number(String(sequence)))]
        switch change {
        case .queued:
            return Array("{\"seq\":\(sequence),\"queued\":".utf8) + written + Array("}\n".utf8)
        case .workspace:
            return Array("{\"seq\":\(sequence),\"workspace\":".utf8) + written + Array("}\n".utf8)
        case .checkpoint(let id, let checkpoint):
            members.append(.init(CodingKeys.id.stringValue, .number(String(id))))
            members.append(.init(CodingKeys.checkpoint.stringValue, (try? JSONValue(encoding: checkpoint)) ?? .null))
        case .finished(let id):
            members.append(.init(CodingKeys.finished.stringValue, .number(String(id))))
        case .opened(let command, let pid):
            members.append(
                .init(
                    CodingKeys.opened.stringValue,
                    .object([.init("command", .string(command)), .init("pid", .number(String(pid)))])))
        }
        return JSONValue.object(members).compactJSONBytes + [UInt8(ascii: "\n")]
    }
}

/// One unfinished task: its request, its place in a chain, and what its
/// files looked like when it was queued.
struct JournalTask: Codable, Sendable, Equatable {
    /// The task's id in the run that wrote it; `after` refers to these.
    var id: Int
    var after: Int?
    var priority: TaskPriority
    var request: UploadRequest
    var files: [JournalFile]
    /// Why it cannot simply be resumed, carried over from an earlier adoption.
    var problem: String?
    /// How far a resumable transfer got.
    var checkpoint: TransferCheckpoint?

    /// Named: `JournalRecorder.encode` writes these keys itself.
    enum CodingKeys: String, CodingKey {
        case id, after, priority, request, files, problem, checkpoint
    }

    /// Why it cannot be resumed as it is, now: a body that cannot be read
    /// again, a problem found at an earlier adoption, or a file that vanished
    /// or changed since it was queued.
    var problemNow: String? {
        guard request.body.isReplayable else { return Self.unreplayable }
        return problem ?? changedFile
    }

    /// The first of its files that vanished or changed since it was queued, and how.
    var changedFile: String? { files.lazy.compactMap { $0.change() }.first }

    static let unreplayable = "it read standard input or a pipe, which cannot be read again"

    init(_ task: TaskSnapshot, files: [JournalFile], problem: String? = nil) {
        id = task.id.rawValue
        after = task.dependency?.rawValue
        priority = task.priority
        request = task.request
        self.files = files
        self.problem = problem
        checkpoint = task.checkpoint
    }
}

/// A file of a queued task, as stat saw it when the task was queued.
struct JournalFile: Codable, Sendable, Equatable {
    var path: String
    var snapshot: FileSnapshot

    init(path: String, snapshot: FileSnapshot) {
        self.path = path
        self.snapshot = snapshot
    }

    /// The file as it is now, or `nil` when it cannot be stat'ed.
    init?(path: String) {
        guard let snapshot = FileSnapshot(path: path) else { return nil }
        self.path = path
        self.snapshot = snapshot
    }

    /// As `JSONValue(encoding:)` gives it, made by hand: see `UploadRequest.Body.encodedJSON`.
    var encodedJSON: JSONValue {
        .object([.init("path", .string(path)), .init("snapshot", snapshot.encodedJSON)])
    }

    /// Why the file is not what was queued: gone, replaced, resized or
    /// rewritten; `nil` when it is the same. The name leads, the full path
    /// follows on a line of its own.
    func change() -> String? {
        let name = baseName(of: path)
        let why: String
        if let now = FileSnapshot(path: path) {
            switch snapshot.difference(to: now) {
            case nil: return nil
            case .replaced: why = "was replaced since it was queued"
            case .resized(let then, let now): why = "changed size since it was queued (\(then) → \(now) bytes)"
            case .modified: why = "was modified since it was queued"
            }
        } else {
            why = "is gone since it was queued"
        }
        return "\(name) \(why)\n\(path)"
    }
}

/// The UI's staging area: target, fields and headers, staged files.
struct JournalWorkspace: Codable, Sendable, Hashable {
    struct File: Codable, Sendable, Hashable {
        var path: String
        var field: String
        var filename: String?
        var contentType: String?
        /// `nil` (also in journals written before it): as the target says.
        var images: ImageChoice?
    }

    var target: Target
    var entries: [FormEntry]
    var files: [File]
    /// The slots and bandwidth limit set live (`+ -`, `[ ]`); nil when untouched.
    var live: LiveQueue?

    /// A target alone is not worth keeping: it comes back with the next `hoist URL`.
    var isEmpty: Bool { entries.isEmpty && files.isEmpty && live == nil }

    init(target: Target, entries: [FormEntry], files: [StagedFile]) {
        self.target = target
        self.entries = entries
        self.files = files.map {
            File(
                path: $0.path, field: $0.fieldName, filename: $0.filename, contentType: $0.contentType,
                images: $0.images == .likeTarget ? nil : $0.images)
        }
    }
}

extension JournalWorkspace {
    /// The UI's staging area as it stands.
    init(_ model: AppModel) {
        self.init(target: model.target, entries: model.entries, files: model.files)
        live = model.liveQueue
    }

    /// Adds what `other` staged: its files that are not staged here yet,
    /// its fields when there are none here, its target when none is set.
    mutating func merge(_ other: JournalWorkspace) {
        let known = Set(files.map { [$0.path, $0.field] })
        files += other.files.filter { !known.contains([$0.path, $0.field]) }
        if entries.isEmpty { entries = other.entries }
        if live == nil { live = other.live }
        if target.url.isEmpty, !other.target.url.isEmpty { target = other.target }
    }
}
