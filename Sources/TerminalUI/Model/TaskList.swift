import Glibc
import UploadEngine

/// The tasks the UI knows, in the order queued tasks start in (the order
/// of adding, unless a task was moved), with a filter. Snapshots come from
/// engine events; a later snapshot replaces an earlier one.
public struct TaskList: Sendable {
    public private(set) var order: [TaskID] = []
    /// Each snapshot in a box of its own, replaced on update (so a copied
    /// list stays a value): inline, 10,000 snapshots made a 21 MB table,
    /// copied whole each time it grew.
    private var byID: [TaskID: Boxed] = [:]
    private final class Boxed: Sendable {
        let snapshot: TaskSnapshot
        init(_ snapshot: TaskSnapshot) { self.snapshot = snapshot }
    }
    /// The `/` filter: a case-insensitive substring of the name, or a state word.
    public private(set) var filter = ""
    /// Ids shown, in order: all tasks, or those matching the filter.
    public private(set) var visible: [TaskID] = []
    private var visibleSet: Set<TaskID> = []
    /// How many tasks are chained right after each task.
    private var followerCounts: [TaskID: Int] = [:]

    public init() {}

    public var count: Int { order.count }
    public subscript(id: TaskID) -> TaskSnapshot? { byID[id]?.snapshot }

    /// Returns true when the task took another place in the list (it was moved).
    @discardableResult
    public mutating func apply(_ snapshot: TaskSnapshot) -> Bool {
        var snapshot = snapshot
        // The history's and the journal's, not the list's: 10,000 tasks would keep them.
        snapshot.sentFiles = nil
        snapshot.fileSnapshots = nil
        let old = byID.updateValue(Boxed(snapshot), forKey: snapshot.id)?.snapshot
        if let old { totals.subtract(old) }
        totals.add(snapshot)
        guard let old else {
            if let before = snapshot.dependency { followerCounts[before, default: 0] += 1 }
            let place = place(of: snapshot)
            order.insert(snapshot.id, at: place)
            if place < order.count - 1 {
                refilter()
            } else if matches(snapshot) {
                visible.append(snapshot.id)
                visibleSet.insert(snapshot.id)
            }
            return false
        }
        if old.dependency != snapshot.dependency {
            if let before = old.dependency { followerCounts[before, default: 1] -= 1 }
            if let before = snapshot.dependency { followerCounts[before, default: 0] += 1 }
        }
        if old.priority != snapshot.priority || old.sequence != snapshot.sequence {
            order.removeAll { $0 == snapshot.id }
            order.insert(snapshot.id, at: place(of: snapshot))
            refilter()
            return true
        }
        if matches(snapshot) != visibleSet.contains(snapshot.id) {
            refilter()  // only when a state change moved it across the filter
        }
        return false
    }

    /// Where `task` goes in `order` (binary search; a new task is nearly always last).
    private func place(of task: TaskSnapshot) -> Int {
        if let last = order.last.flatMap({ self[$0] }), TaskSnapshot.startsBefore(last, task) { return order.count }
        var low = 0
        var high = order.count
        while low < high {
            let mid = (low + high) / 2
            if let other = self[order[mid]], TaskSnapshot.startsBefore(other, task) {
                low = mid + 1
            } else {
                high = mid
            }
        }
        return low
    }

    public mutating func remove(_ id: TaskID) {
        guard let old = byID.removeValue(forKey: id)?.snapshot else { return }
        totals.subtract(old)
        if let before = old.dependency { followerCounts[before, default: 1] -= 1 }
        order.removeAll { $0 == id }
        if visibleSet.remove(id) != nil { visible.removeAll { $0 == id } }
    }

    public mutating func setFilter(_ text: String) {
        filter = text
        refilter()
    }

    private mutating func refilter() {
        visible = filter.isEmpty ? order : order.filter { self[$0].map(matches) ?? false }
        visibleSet = Set(visible)
    }

    /// A name's part, a glob (`*.jpg`, as the browser's filter), or a
    /// state word (`Self.stateWords`).
    private func matches(_ task: TaskSnapshot) -> Bool {
        guard !filter.isEmpty else { return true }
        let needle = filter.lowercased()
        let name = task.request.displayName.lowercased()
        if needle.contains("*") || needle.contains("?") {
            if fnmatch(needle, name, 0) == 0 { return true }
        } else if name.contains(needle) {
            return true
        }
        return Self.stateWords(task.state).contains { $0.hasPrefix(needle) }
    }

    /// The words `/` knows for a state, as the help lists them.
    static func stateWords(_ state: TaskState) -> [String] {
        switch state {
        case .queued: return ["queued", "waiting"]
        case .waitingForDependency: return ["waiting", "after"]
        case .sending: return ["sending", "running"]
        case .awaitingResponse: return ["awaiting response", "running"]
        case .waitingToRetry: return ["retry pending", "waiting"]
        case .succeeded: return ["done", "succeeded", "ok"]
        case .failed: return ["failed", "error"]
        case .cancelled: return ["cancelled", "canceled"]
        case .interrupted: return ["interrupted"]
        }
    }

    /// Sums over every task (not just the visible ones), for the totals line.
    public struct Totals: Sendable, Hashable {
        public var count = 0, running = 0, waiting = 0, succeeded = 0, failed = 0, cancelled = 0
        /// Of the waiting, those waiting to retry (their countdown moves).
        public var retrying = 0
        /// Tasks an earlier hoist left unfinished, and those of them with a problem.
        public var interrupted = 0, flagged = 0
        public var bytesSent: Int64 = 0
        public var totalBytes: Int64 = 0
        public var bytesPerSecond: Double = 0
        /// Unfinished tasks that do not know their size; with any, no ETA can be given.
        public var unknownSizes = 0
        public var sizesKnown: Bool { unknownSizes == 0 }

        mutating func add(_ task: TaskSnapshot) { count(task, sign: 1) }
        mutating func subtract(_ task: TaskSnapshot) { count(task, sign: -1) }

        private mutating func count(_ task: TaskSnapshot, sign: Int) {
            count += sign
            switch task.state {
            case .sending, .awaitingResponse: running += sign
            case .succeeded: succeeded += sign
            case .failed: failed += sign
            case .cancelled: cancelled += sign
            case .queued, .waitingForDependency: waiting += sign
            case .waitingToRetry:
                waiting += sign
                retrying += sign
            case .interrupted(let problem):
                interrupted += sign
                if problem != nil { flagged += sign }
            }
            if case .cancelled = task.state { return }
            if case .interrupted = task.state { return }
            bytesSent += Int64(sign) * task.progress.bytesSent
            if let total = task.progress.totalBytes {
                totalBytes += Int64(sign) * total
            } else if !task.state.isFinished {
                unknownSizes += sign
            }
            if task.state == .sending { bytesPerSecond += Double(sign) * task.progress.bytesPerSecond }
        }
    }

    /// Kept up to date by `apply` and `remove`, so a frame never sums 1,000 tasks.
    public private(set) var totals = Totals()

    /// Tasks still to finish (running or waiting).
    public var unfinishedCount: Int { totals.running + totals.waiting }

    /// Whether a task is chained right after `id`.
    public func hasFollowers(_ id: TaskID) -> Bool {
        followerCounts[id, default: 0] > 0
    }

    /// The tasks chained after `id` (directly or through others), in chain
    /// order, that ended without succeeding: those its failure cancelled.
    public func unfinishedFollowers(of id: TaskID) -> [TaskID] {
        var followers: [TaskID] = []
        var links: Set<TaskID> = [id]
        for next in order {
            guard let task = self[next], let before = task.dependency, links.contains(before) else { continue }
            links.insert(next)
            if task.state.isFinished, task.state != .succeeded { followers.append(next) }
        }
        return followers
    }
}
