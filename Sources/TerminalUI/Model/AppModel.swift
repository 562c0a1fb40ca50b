import UploadEngine
import UploadPlan

/// The panes, in Tab order.
public enum Pane: Int, Sendable, Hashable, CaseIterable {
    case files, fields, tasks, response

    public var title: String {
        switch self {
        case .files: return "Files"
        case .fields: return "Fields & headers"
        case .tasks: return "Tasks"
        case .response: return "Response"
        }
    }
}

/// What covers the panes, if anything.
public enum Overlay: Sendable, Hashable {
    case help(scroll: Int)
    case browser(FileBrowser)
    case editor(EditorForm)
    /// `q` while uploads run: quit and cancel them?
    case confirmQuit
    /// `v` in the Response pane: the selected line whole, wrapped.
    case value(title: String, text: String, scroll: Int)
    /// Enter on a history item while files are staged: replace them, or add these?
    case restage(HistoryItem)
    /// `L`: the finished uploads of earlier sessions.
    case history(HistoryBrowser)
    /// `O`: the profiles file's profiles, to load one.
    case profiles(ProfilePicker)
}

/// A one-line message in the bottom bar until the next key.
public struct Notice: Sendable, Hashable {
    public var text: String
    public var isError: Bool

    public init(_ text: String, isError: Bool = false) {
        self.text = text
        self.isError = isError
    }
}

/// Everything the screen shows, and nothing else: the single model of the
/// Elm architecture. Changed only by `update`.
public struct AppModel: Sendable {
    public var size: Size
    /// The time the frame is drawn at (retry countdowns); the app sets it before each frame.
    public var now = ContinuousClock.now
    public var target: Target
    public var profile: String?
    public var files: [StagedFile] = []
    public var entries: [FormEntry] = []
    public var tasks = TaskList()
    /// What the last prepared copy of each image file became, by its path, for the Files pane.
    public var preparedImages: [String: PreparedImage] = [:]
    public var queue = QueueStatus(isPaused: false, concurrency: 4, running: 0, queued: 0)
    public var focus: Pane = .files
    /// Cursor and first visible row of the list panes.
    public var cursor: [Pane: Int] = [:]
    public var scroll: [Pane: Int] = [:]
    public var response = ResponseViewState()
    /// The task the Response pane shows (follows the Tasks cursor).
    public var responseTask: TaskID?
    public var overlay: Overlay?
    /// The `/` filter while it is typed.
    public var filterInput: TextInput?
    /// Paths being staged again from the history: marked when they arrive,
    /// so `u` sends exactly the earlier upload.
    var marksWhenStaged: Set<String> = []
    /// The slots and bandwidth limit as set with `+ -` and `[ ]`, kept by the
    /// journal (issue 37 #10); nil until one of those keys is pressed.
    public var liveQueue: LiveQueue?
    /// `liveQueue` came from an earlier hoist: the top bar says so.
    public var liveQueueIsEarlier = false
    /// Files an earlier hoist left staged, restored at start: `X` discards them.
    public var restoredFiles: Set<Int> = []
    /// The next task the engine reports added is selected: `u` just queued it.
    var selectsNextAdded = false
    /// Tasks marked with Space in the Tasks pane: c, r and d act on them.
    public var markedTasks: Set<TaskID> = []
    /// What `u` makes of the staged files (`o` cycles).
    public var sendMode = SendMode.taskPerFile
    public var notice: Notice? {
        didSet {
            // Every notice also goes to the log `M` shows: a long one is cut on the bottom line.
            guard let notice, notice != oldValue else { return }
            messages.append(notice)
            if messages.count > Self.kept { messages.removeFirst(messages.count - Self.kept) }
        }
    }
    /// The latest notices, oldest first.
    public private(set) var messages: [Notice] = []
    static let kept = 200
    /// The directory the file browser opens in first.
    public var startDirectory: String
    public var quitting = false
    /// Quit because of SIGINT, SIGTERM or SIGHUP.
    public var interrupted = false
    /// Unfinished tasks outlive a quit in the journal (not in the demo).
    public var journaled = false
    private var nextFileID = 1

    public init(size: Size, target: Target, profile: String? = nil, startDirectory: String) {
        self.size = size
        self.target = target
        self.profile = profile
        self.startDirectory = startDirectory
    }

    public func cursor(_ pane: Pane) -> Int { cursor[pane, default: 0] }

    /// The task under the Tasks cursor.
    public var selectedTask: TaskSnapshot? {
        let visible = tasks.visible
        let index = cursor(.tasks)
        return index < visible.count ? tasks[visible[index]] : nil
    }

    mutating func stage(_ file: StagedFile) {
        var file = file
        file.id = nextFileID
        nextFileID += 1
        files.append(file)
    }
}

/// The queue's settings changed while the UI ran.
public struct LiveQueue: Sendable, Hashable, Codable {
    public var concurrency: Int
    /// Bytes per second over every upload; nil for no limit.
    public var limitRate: Int64?

    public init(concurrency: Int, limitRate: Int64?) {
        self.concurrency = concurrency
        self.limitRate = limitRate
    }
}

/// What `u` makes of the staged files.
public enum SendMode: String, Sendable, Hashable, CaseIterable {
    /// One task per file, side by side.
    case taskPerFile = "task per file"
    /// Every file in one request.
    case oneRequest = "one request"
    /// One task per file in the Files pane's order, each after the one
    /// before succeeded: the front of an ID card, then its back.
    case chain = "chain"

    var next: SendMode { Self.allCases[(Self.allCases.firstIndex(of: self)! + 1) % Self.allCases.count] }

    var notice: String {
        switch self {
        case .taskPerFile: return "u sends one task per file"
        case .oneRequest: return "u sends all files in one request"
        case .chain: return "u sends the files in the order shown, each after the one before succeeded"
        }
    }
}
