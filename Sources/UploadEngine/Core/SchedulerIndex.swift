/// The scheduler's indexes over the tasks: the queue in start order, counts
/// of running and unfinished tasks, active uploads by identity (dedupe) and
/// each task's dependents. The engine updates it on every state change, so
/// no event has to scan all tasks.
struct SchedulerIndex {
    struct QueueKey: Comparable {
        var priority: TaskPriority
        var sequence: Int
        var id: TaskID

        /// Higher priority first, then the order of adding.
        static func < (lhs: QueueKey, rhs: QueueKey) -> Bool {
            lhs.priority != rhs.priority ? lhs.priority > rhs.priority : lhs.sequence < rhs.sequence
        }
    }

    private(set) var queue: [QueueKey] = []
    private(set) var running = 0
    private(set) var unfinished = 0
    /// Unfinished tasks by request identity. Interrupted tasks are left out:
    /// staging the same file again must make a new upload, not find the old one.
    var active: [UploadRequest: TaskID] = [:]
    /// Tasks waiting on each task.
    var dependents: [TaskID: [TaskID]] = [:]

    var nextQueued: TaskID? { queue.first?.id }
    var queuedCount: Int { queue.count }

    mutating func added(_ id: TaskID, state: TaskState = .queued, priority: TaskPriority, sequence: Int, identity: UploadRequest) {
        unfinished += 1
        guard state == .queued else { return }
        active[identity] = id
        insert(QueueKey(priority: priority, sequence: sequence, id: id))
    }

    /// Whether a task in this state may be found by dedupe.
    private static func isActive(_ state: TaskState) -> Bool {
        if case .interrupted = state { return false }
        return !state.isFinished
    }

    mutating func moved(_ id: TaskID, from old: TaskState, to new: TaskState, priority: TaskPriority, sequence: Int, identity: UploadRequest) {
        let key = QueueKey(priority: priority, sequence: sequence, id: id)
        if old == .queued, new != .queued { remove(key) }
        if new == .queued, old != .queued { insert(key) }
        if old.isRunning { running -= 1 }
        if new.isRunning { running += 1 }
        if !old.isFinished, new.isFinished { unfinished -= 1 }
        if old.isFinished, !new.isFinished { unfinished += 1 }
        if Self.isActive(old), !Self.isActive(new), active[identity] == id { active[identity] = nil }
        if !Self.isActive(old), Self.isActive(new), active[identity] == nil { active[identity] = id }
    }

    private mutating func insert(_ key: QueueKey) {
        queue.insert(key, at: position(of: key))
    }

    private mutating func remove(_ key: QueueKey) {
        let index = position(of: key)
        if index < queue.count, queue[index] == key { queue.remove(at: index) }
    }

    /// The first index whose key is not before `key` (binary search).
    private func position(of key: QueueKey) -> Int {
        var low = 0
        var high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if queue[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
