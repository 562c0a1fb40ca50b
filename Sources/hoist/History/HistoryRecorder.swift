import Dispatch
import FoundationEssentials
import Glibc
import UploadEngine

/// Appends each finished task to the history file. A history that cannot be
/// written is reported once on stderr and never fails an upload.
final class HistoryRecorder: UploadEventMonitor, @unchecked Sendable {
    let queue: DispatchQueue
    private let store: HistoryStore
    private let secretFields: @Sendable () -> Set<String>
    private var warned = false
    /// The history's folder was made and checked, at the first append. On `queue`.
    private var folderChecked = false
    /// Lines made but not yet written. Touched only on `queue`.
    private var pending: [String] = []
    /// A journal keeps what a quit or a signal cancels: those tasks go on
    /// later, and are recorded when they end. Set before the engine starts.
    var journaled = false

    /// `secretFields` is asked at each finished task: in the UI the user can
    /// mark a field secret at any time.
    /// `target`, when given, is the thread the recorder shares with other monitors.
    init(
        store: HistoryStore = HistoryStore(path: HistoryStore.defaultPath()), target: DispatchQueue? = nil,
        secretFields: @escaping @Sendable () -> Set<String>
    ) {
        self.queue = DispatchQueue(label: "hoist.history", target: target)
        self.store = store
        self.secretFields = secretFields
    }

    /// Only finished tasks are recorded.
    func wants(_ event: UploadEvent) -> Bool {
        if case .finished = event { return true }
        return false
    }

    func handle(_ event: UploadEvent) {
        guard case .finished(let task) = event, Self.isAnEnd(task, journaled: journaled) else { return }
        pending.append(HistoryEntry.make(for: task, secretFields: secretFields()).compactJSON)
        // The engine hands over its events in batches: the lines of one batch
        // go to the file together, with one open (and one write per line)
        // instead of one open per task.
        if pending.count == 1 { queue.async { self.write() } }
    }

    /// False for a task that only stopped to go on later (issue 37 #8): a
    /// paused one, and with a journal one cancelled by a quit or a signal or
    /// kept for `hoist resume`. Its real end is recorded once, when it comes.
    static func isAnEnd(_ task: TaskSnapshot, journaled: Bool) -> Bool {
        if task.isPaused { return false }
        return !journaled || !goesOnLater(task)
    }

    /// Ended for now, not for good: paused, kept for `hoist resume`, or
    /// stopped by a quit or a signal. A journal keeps such a task.
    static func goesOnLater(_ task: TaskSnapshot) -> Bool {
        if task.isPaused || task.keptForResume { return true }
        if case .cancelled(let reason) = task.state {
            return reason == UploadEngine.quitReason || reason == UploadEngine.interruptedReason
        }
        return false
    }

    /// Waits until every task handed over so far is on disk.
    func flush() {
        queue.sync { write() }
    }

    /// Appends the pending lines. On `queue`.
    private func write() {
        guard !pending.isEmpty else { return }
        let lines = pending
        pending = []
        do {
            try store.append(lines, folderChecked: folderChecked)
            folderChecked = true
        } catch {
            guard !warned else { return }
            warned = true
            printError("hoist: history not written: \(error)")
        }
    }
}

/// The names the user marked secret in the UI, read by the recorder on its
/// own queue while the UI thread may change them.
typealias SecretNames = Locked<Set<String>>

/// A value shared between the UI thread and a background queue.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private var stored: Value
    private let lock = ThreadLock()

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension Locked where Value == Set<String> {
    convenience init() { self.init([]) }
}
