/// Who waits for whom, with no I/O: events in, actions out. A task queued to
/// run after another waits until that one has succeeded, and is cancelled
/// when it failed, was cancelled or does not exist. The engine reports each
/// task queued with a dependency, each task that stops waiting on its own
/// (cancelled) and each task that finishes; it hands the events that come
/// back to the named tasks' own state machines.
struct TaskDependencyStateMachine: Sendable, Hashable {
    enum Event: Sendable, Hashable {
        /// `task` was queued (added, resumed or retried) to run after
        /// `dependency`, which is in `dependencyState` (nil: there is no such
        /// task) and is called `dependencyName` in lists.
        case queued(TaskID, after: TaskID, dependencyState: TaskState?, dependencyName: String? = nil)
        /// `task` left its wait for a reason of its own: it was cancelled.
        case stoppedWaiting(TaskID)
        /// `task`, called `name` in lists, finished in `state`.
        case finished(TaskID, state: TaskState, name: String? = nil)
    }

    enum Action: Sendable, Hashable {
        case none
        /// Hand `event` to the state machine of each of `tasks`, in this order.
        case tell([TaskID], UploadTaskStateMachine.Event)
    }

    /// The tasks waiting on each task, in the order they began to wait.
    private(set) var dependents: [TaskID: [TaskID]] = [:]
    /// The task each waiting task waits on.
    private(set) var waitingOn: [TaskID: TaskID] = [:]

    mutating func handle(_ event: Event) -> Action {
        switch event {
        case .queued(let task, let dependency, let dependencyState, let name):
            let link = Self.link(dependency, name)
            switch dependencyState {
            case nil:
                return .tell([task], .dependencyEnded(reason: "task \(dependency) does not exist"))
            case .succeeded?:
                return .none
            case .failed(let failure)?:
                return .tell([task], .dependencyEnded(reason: "\(link) failed: \(failure)"))
            case .cancelled(let reason)?:
                return .tell([task], .dependencyEnded(reason: "\(link) was cancelled (\(reason))"))
            default:
                dependents[dependency, default: []].append(task)
                waitingOn[task] = dependency
                return .tell([task], .dependencyPending(dependency))
            }
        case .stoppedWaiting(let task):
            guard let dependency = waitingOn.removeValue(forKey: task) else { return .none }
            dependents[dependency]?.removeAll { $0 == task }
            if dependents[dependency]?.isEmpty == true { dependents[dependency] = nil }
            return .none
        case .finished(let task, let state, let name):
            guard let waiting = dependents.removeValue(forKey: task) else { return .none }
            for dependent in waiting { waitingOn[dependent] = nil }
            let link = Self.link(task, name)
            switch state {
            case .succeeded: return .tell(waiting, .dependencySucceeded)
            case .failed(let failure):
                return .tell(waiting, .dependencyEnded(reason: "\(link) failed: \(failure)"))
            default: return .tell(waiting, .dependencyEnded(reason: "\(link) was cancelled"))
            }
        }
    }

    /// `身份证 正面.jpg (task #1)`, or `task #1` when it has no name.
    private static func link(_ id: TaskID, _ name: String?) -> String {
        name.map { "\($0) (task \(id))" } ?? "task \(id)"
    }
}
