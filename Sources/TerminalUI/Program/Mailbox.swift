import Dispatch
import FoundationEssentials
import UploadEngine

/// Where messages from other threads (engine events, finished file reads)
/// wait for the UI loop. It keeps only the latest progress per task, so a
/// slow frame never builds a backlog, and calls `wake` once per batch:
/// when the first message arrives in an empty box.
public final class Mailbox: @unchecked Sendable {
    private let lock = ThreadLock()
    private var messages: [Message] = []
    /// Index in `messages` of each task's pending progress event.
    private var pendingProgress: [TaskID: Int] = [:]
    private var wake: @Sendable () -> Void = {}

    public init() {}

    public func setWake(_ wake: @escaping @Sendable () -> Void) {
        lock.withLock { self.wake = wake }
    }

    public func post(_ message: Message) {
        let wakeNow: (@Sendable () -> Void)? = lock.withLock {
            let wasEmpty = messages.isEmpty
            append(message)
            return wasEmpty ? wake : nil
        }
        wakeNow?()
    }

    /// Engine events, under one lock and in one growth of the box: 10,000
    /// tasks added at once, appended one by one, left the box's earlier
    /// buffers behind as it doubled (8 MB at the peak).
    func post(events: [UploadEvent]) {
        let wakeNow: (@Sendable () -> Void)? = lock.withLock {
            let wasEmpty = messages.isEmpty
            let needed = messages.count + events.count
            if needed > messages.capacity { messages.reserveCapacity(max(needed, 2 * messages.capacity)) }
            for event in events { append(.engine(event)) }
            return wasEmpty && !messages.isEmpty ? wake : nil
        }
        wakeNow?()
    }

    /// Under the lock.
    private func append(_ message: Message) {
        if case .engine(.progress(let snapshot)) = message, let index = pendingProgress[snapshot.id] {
            messages[index] = message
            return
        }
        if case .engine(let event) = message, let snapshot = event.snapshot {
            if case .progress = event {
                pendingProgress[snapshot.id] = messages.count
            } else {
                // A later state must not be overtaken by an earlier progress snapshot.
                pendingProgress[snapshot.id] = nil
            }
        }
        messages.append(message)
    }

    /// Everything posted since the last call, in order.
    public func drain() -> [Message] {
        lock.withLock {
            // Handed over whole: keeping the capacity made every drain allocate
            // a new buffer as large as the largest burst (10,000 tasks added).
            defer {
                messages = []
                pendingProgress = [:]
            }
            return messages
        }
    }
}

extension Mailbox: UploadEventMonitor {
    /// The engine hands events to the mailbox's own delivery queue (one hop
    /// off the engine's queue, so drawing never slows scheduling); from
    /// there the lock is all the handoff to the UI loop needs.
    public var queue: DispatchQueue { Mailbox.deliveryQueue }
    private static let deliveryQueue = DispatchQueue(label: "hoist.ui.mailbox")

    public func handle(_ event: UploadEvent) {
        post(.engine(event))
    }

    public func handle(batch events: [UploadEvent]) {
        post(events: events)
    }

    public var takesEventsOnAnyQueue: Bool { true }
}
