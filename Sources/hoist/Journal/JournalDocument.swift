import FormData
import TerminalUI
import UploadEngine
import UploadPlan

/// What one hoist process has not finished, as its journal file holds it:
/// every task not yet finished, and (for the UI) the staged files, fields
/// and target. A later hoist adopts it when this process is gone.
struct JournalDocument: Codable, Sendable {
    static let currentVersion = 1

    var version = JournalDocument.currentVersion
    /// `tui` or `send`: who wrote it, for the notice on adoption.
    var command: String
    var pid: Int32
    var tasks: [JournalTask] = []
    var workspace: JournalWorkspace?

    var isEmpty: Bool { tasks.isEmpty && (workspace?.isEmpty ?? true) }

    /// Named: `JournalRecorder.document` writes these keys itself.
    enum CodingKeys: String, CodingKey {
        case version, command, pid, tasks, workspace
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

    /// Named: `JournalRecorder.encode` writes these keys itself.
    enum CodingKeys: String, CodingKey {
        case id, after, priority, request, files, problem
    }

    init(_ task: TaskSnapshot, files: [JournalFile], problem: String? = nil) {
        id = task.id.rawValue
        after = task.dependency?.rawValue
        priority = task.priority
        request = task.request
        self.files = files
        self.problem = problem
    }
}

/// A file of a queued task, as stat saw it when the task was queued.
struct JournalFile: Codable, Sendable, Equatable {
    var path: String
    var snapshot: FileSnapshot

    /// The file as it is now, or `nil` when it cannot be stat'ed.
    init?(path: String) {
        guard let snapshot = FileSnapshot(path: path) else { return nil }
        self.path = path
        self.snapshot = snapshot
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
struct JournalWorkspace: Codable, Sendable, Equatable {
    struct File: Codable, Sendable, Equatable {
        var path: String
        var field: String
        var filename: String?
        var contentType: String?
    }

    var target: Target
    var entries: [FormEntry]
    var files: [File]

    /// A target alone is not worth keeping: it comes back with the next `hoist URL`.
    var isEmpty: Bool { entries.isEmpty && files.isEmpty }

    init(target: Target, entries: [FormEntry], files: [StagedFile]) {
        self.target = target
        self.entries = entries
        self.files = files.map {
            File(path: $0.path, field: $0.fieldName, filename: $0.filename, contentType: $0.contentType)
        }
    }
}

extension UploadRequest.Body {
    /// The files the body reads from disk, with their form fields.
    var filePaths: [String] {
        switch self {
        case .multipart(let form):
            return form.parts.compactMap { if case .file(let path) = $0.content { path } else { nil } }
        case .rawFile(let path, _): return [path]
        case .base64JSON(let body): return [body.path]
        case .urlencoded, .json, .bytes: return []
        }
    }
}

extension JournalWorkspace {
    /// The UI's staging area as it stands.
    init(_ model: AppModel) {
        self.init(target: model.target, entries: model.entries, files: model.files)
    }

    /// Adds what `other` staged: its files that are not staged here yet,
    /// its fields when there are none here, its target when none is set.
    mutating func merge(_ other: JournalWorkspace) {
        let known = Set(files.map { [$0.path, $0.field] })
        files += other.files.filter { !known.contains([$0.path, $0.field]) }
        if entries.isEmpty { entries = other.entries }
        if target.url.isEmpty, !other.target.url.isEmpty { target = other.target }
    }
}
