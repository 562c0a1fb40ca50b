import Dispatch

/// What the engine reports. Every event carries the task's full snapshot.
public indirect enum UploadEvent: Sendable {
    case added(TaskSnapshot)
    /// The state changed (started, body sent, waiting to retry, ...).
    case stateChanged(TaskSnapshot)
    /// Bytes moved: at most about 20 a second per task.
    case progress(TaskSnapshot)
    /// A resumable transfer reached a new durable state (`snapshot.checkpoint`):
    /// the journal keeps it so that a later attempt or process goes on from it.
    case checkpoint(TaskSnapshot)
    /// The task ended: succeeded, failed or cancelled. Always sent, last.
    case finished(TaskSnapshot)
    /// The queue was paused or resumed, or its concurrency changed.
    case queueChanged(QueueStatus)

    public var snapshot: TaskSnapshot? {
        switch self {
        case .added(let s), .stateChanged(let s), .progress(let s), .checkpoint(let s), .finished(let s): return s
        case .queueChanged: return nil
        }
    }
}

public struct QueueStatus: Sendable, Hashable {
    public var isPaused: Bool
    public var concurrency: Int
    public var running: Int
    public var queued: Int
    /// Bytes per second over every upload; nil for no limit.
    public var limitRate: Int64?

    public init(isPaused: Bool, concurrency: Int, running: Int, queued: Int, limitRate: Int64? = nil) {
        self.isPaused = isPaused
        self.concurrency = concurrency
        self.running = running
        self.queued = queued
        self.limitRate = limitRate
    }
}

/// Receives engine events on a queue it names, as Alamofire's EventMonitor does.
public protocol UploadEventMonitor: Sendable {
    var queue: DispatchQueue { get }
    func handle(_ event: UploadEvent)
    /// Whether `handle` should get this event. The engine asks on its own
    /// queue, before it hands a batch over; a batch the monitor wants
    /// nothing of is not sent at all, which spares a thread wake-up. Answer
    /// from immutable state only. By default, every event.
    func wants(_ event: UploadEvent) -> Bool
    /// A batch of events, in order, on `queue`. By default, `handle` each.
    func handle(batch events: [UploadEvent])
    /// Whether `handle(batch:)` may run at once on whatever queue passes the
    /// events on, because all it does is take a lock and append (the UI's
    /// mailbox): `deliver` (the engine's, the journal's) then spares a thread
    /// wake-up per batch. By default, no: events go to `queue`.
    var takesEventsOnAnyQueue: Bool { get }
}

extension UploadEventMonitor {
    public func wants(_ event: UploadEvent) -> Bool { true }

    public var takesEventsOnAnyQueue: Bool { false }

    public func handle(batch events: [UploadEvent]) {
        for event in events { handle(event) }
    }
}

extension Array where Element == any UploadEventMonitor {
    /// Hands each monitor the events of `batch` it wants, in order: on its
    /// queue, or at once when it takes events on any queue.
    public func deliver(_ batch: [UploadEvent]) {
        for monitor in self {
            let events = batch.allSatisfy(monitor.wants) ? batch : batch.filter(monitor.wants)
            guard !events.isEmpty else { continue }
            if monitor.takesEventsOnAnyQueue {
                monitor.handle(batch: events)
            } else {
                monitor.queue.async { monitor.handle(batch: events) }
            }
        }
    }
}

/// An event monitor made of a queue and a closure.
public struct ClosureEventMonitor: UploadEventMonitor {
    public let queue: DispatchQueue
    private let handler: @Sendable (UploadEvent) -> Void

    public init(queue: DispatchQueue, handler: @escaping @Sendable (UploadEvent) -> Void) {
        self.queue = queue
        self.handler = handler
    }

    public func handle(_ event: UploadEvent) {
        handler(event)
    }
}
