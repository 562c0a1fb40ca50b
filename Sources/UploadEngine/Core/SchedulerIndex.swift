/// The scheduler's indexes over the tasks: the queue in start order, counts
/// of running and unfinished tasks, and active uploads by dedupe key. The
/// engine updates it on every state change, so no event has to scan all tasks.
struct SchedulerIndex {
    struct QueueKey: Comparable {
        var priority: TaskPriority
        var sequence: Int
        var id: TaskID

        /// Where `task` stands in the queue.
        init(_ task: TaskSnapshot) {
            self.init(priority: task.priority, sequence: task.sequence, id: task.id)
        }

        init(priority: TaskPriority, sequence: Int, id: TaskID) {
            self.priority = priority
            self.sequence = sequence
            self.id = id
        }

        /// Higher priority first, then the lower sequence (the order of adding, unless moved).
        static func < (lhs: QueueKey, rhs: QueueKey) -> Bool {
            lhs.priority != rhs.priority
                ? lhs.priority > rhs.priority : (lhs.sequence, lhs.id.rawValue) < (rhs.sequence, rhs.id.rawValue)
        }
    }

    /// Queued tasks in start order from `head` on. Starting the first one
    /// moves `head` instead of shifting the whole array (1,000 queued tasks
    /// would be copied once per start).
    private var queue: [QueueKey] = []
    private var head = 0
    private(set) var running = 0
    private(set) var unfinished = 0
    /// Unfinished tasks by the hash of their dedupe key (`DedupeKey`).
    /// Interrupted tasks are left out: staging the same file again must make
    /// a new upload, not find the old one.
    var active: [Int: TaskID] = [:]

    var nextQueued: TaskID? { head < queue.count ? queue[head].id : nil }
    var queuedCount: Int { queue.count - head }
    /// The first `count` queued tasks, in the order they will start.
    func nextQueued(_ count: Int) -> [TaskID] { queue[head..<min(queue.count, head + count)].map(\.id) }

    /// Room for `extra` more tasks, before a batch is added.
    mutating func reserveCapacity(_ extra: Int) {
        queue.reserveCapacity(queue.count + extra)
        active.reserveCapacity(active.count + extra)
    }

    mutating func added(
        _ id: TaskID, state: TaskState = .queued, priority: TaskPriority, sequence: Int, dedupeHash: Int
    ) {
        unfinished += 1
        guard state == .queued else { return }
        active[dedupeHash] = id
        insert(QueueKey(priority: priority, sequence: sequence, id: id))
    }

    /// Whether a task in this state may be found by dedupe.
    private static func isActive(_ state: TaskState) -> Bool {
        if case .interrupted = state { return false }
        return !state.isFinished
    }

    mutating func moved(
        _ id: TaskID, from old: TaskState, to new: TaskState, priority: TaskPriority, sequence: Int,
        dedupeHash: Int
    ) {
        let key = QueueKey(priority: priority, sequence: sequence, id: id)
        if old == .queued, new != .queued { remove(key) }
        if new == .queued, old != .queued { insert(key) }
        if old.isRunning { running -= 1 }
        if new.isRunning { running += 1 }
        if !old.isFinished, new.isFinished { unfinished -= 1 }
        if old.isFinished, !new.isFinished { unfinished += 1 }
        if Self.isActive(old), !Self.isActive(new), active[dedupeHash] == id { active[dedupeHash] = nil }
        if !Self.isActive(old), Self.isActive(new), active[dedupeHash] == nil { active[dedupeHash] = id }
    }

    /// The queued task `step` places before (-1) or after (+1) `key` in start order.
    func neighbor(of key: QueueKey, _ step: Int) -> QueueKey? {
        let index = position(of: key)
        guard index < queue.count, queue[index] == key, (head..<queue.count).contains(index + step) else { return nil }
        return queue[index + step]
    }

    var firstQueued: QueueKey? { head < queue.count ? queue[head] : nil }

    /// Gives queued tasks new places: each old key is taken out, then each new one put in.
    mutating func rekey(_ changes: [(old: QueueKey, new: QueueKey)]) {
        for change in changes { remove(change.old) }
        for change in changes { insert(change.new) }
    }

    private mutating func insert(_ key: QueueKey) {
        let index = position(of: key)
        if index == head, head > 0 {
            head -= 1
            queue[head] = key
        } else {
            queue.insert(key, at: index)
        }
    }

    private mutating func remove(_ key: QueueKey) {
        let index = position(of: key)
        guard index < queue.count, queue[index] == key else { return }
        if index == head {
            head += 1
            // The slots before `head` are dropped once they are half the array.
            if head > 32, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
        } else {
            queue.remove(at: index)
        }
    }

    /// The first index from `head` whose key is not before `key` (binary search).
    private func position(of key: QueueKey) -> Int {
        var low = head
        var high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if queue[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
