import FormData

/// Identifies a task within one engine.
public struct TaskID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int
    public init(_ rawValue: Int) { self.rawValue = rawValue }
    public static func < (lhs: TaskID, rhs: TaskID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

public enum TaskPriority: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case low = 0
    case normal = 1
    case high = 2
    public static func < (lhs: TaskPriority, rhs: TaskPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where a task is in its life. See `UploadTask+StateMachine.swift`.
public enum TaskState: Sendable, Hashable {
    case queued
    case waitingForDependency(TaskID)
    /// Running: the body is being written.
    case sending
    /// Running: the body is written (or the server answered early); reading the response.
    case awaitingResponse
    case waitingToRetry(at: ContinuousClock.Instant)
    case succeeded
    /// Indirect: every task's state (in each record and each event) would
    /// otherwise be as large as the largest failure.
    indirect case failed(UploadFailure)
    case cancelled(reason: String)
    /// A task an earlier run of hoist queued and did not finish, restored
    /// from its journal. It waits for `resumeInterrupted()` or `retry`.
    /// `problem` says why "resume all" leaves it alone (its file vanished or
    /// changed since it was queued); `nil` means it can be resumed as it is.
    case interrupted(problem: String?)

    public var isRunning: Bool { self == .sending || self == .awaitingResponse }

    public var isFinished: Bool {
        switch self {
        case .succeeded, .failed, .cancelled: return true
        default: return false
        }
    }

    /// Stopped by `UploadEngine.pause`: cancelled for the reason it gives.
    public var isPaused: Bool {
        if case .cancelled(let reason) = self { return reason == UploadEngine.pausedReason }
        return false
    }

    /// A short word for lists and logs.
    public var name: String {
        switch self {
        case .queued: return "queued"
        case .waitingForDependency: return "waiting"
        case .sending: return "sending"
        case .awaitingResponse: return "awaiting response"
        case .waitingToRetry: return "retry pending"
        case .succeeded: return "done"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .interrupted: return "interrupted"
        }
    }
}

/// Bytes written for the current attempt. Never above the total, never backwards within an attempt.
public struct UploadProgress: Sendable, Hashable {
    public var attempt: Int
    public var bytesSent: Int64
    /// `nil` for a chunked body of unknown length.
    public var totalBytes: Int64?
    /// Smoothed send rate.
    public var bytesPerSecond: Double
    public var eta: Duration?

    public init(
        attempt: Int = 0, bytesSent: Int64 = 0, totalBytes: Int64? = nil, bytesPerSecond: Double = 0,
        eta: Duration? = nil
    ) {
        self.attempt = attempt
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.eta = eta
    }

    /// 0...1, or `nil` when the total is unknown.
    public var fraction: Double? {
        guard let totalBytes else { return nil }
        guard totalBytes > 0 else { return bytesSent >= 0 ? 1 : 0 }
        return min(1, Double(bytesSent) / Double(totalBytes))
    }
}

/// What the server answered.
public struct UploadResponse: Sendable, Hashable {
    public enum Content: Sendable, Hashable {
        case empty
        case json(JSONValue)
        /// Declared or sniffed JSON that did not parse; kept as text with the reason.
        case invalidJSON(text: String, error: String)
        case text(String)
        case binary(summary: String)
    }

    public var status: Int
    public var headers: [HeaderField]
    public var elapsed: Duration
    /// The body, up to the engine's cap.
    public var body: [UInt8]
    /// All body bytes received, kept or not.
    public var bodyBytesReceived: Int64
    public var content: Content
    /// The protocol the answer came in: "HTTP/1.1", or "HTTP/2" when TLS negotiated it.
    public var version: String

    public init(
        status: Int, headers: [HeaderField], elapsed: Duration, body: [UInt8], bodyBytesReceived: Int64,
        content: Content,
        version: String = "HTTP/1.1"
    ) {
        self.version = version
        self.status = status
        self.headers = headers
        self.elapsed = elapsed
        self.body = body
        self.bodyBytesReceived = bodyBytesReceived
        self.content = content
    }

    public var isTruncated: Bool { bodyBytesReceived > Int64(body.count) }

    public var json: JSONValue? {
        if case .json(let value) = content { return value }
        return nil
    }

    public func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
    }
}

/// A file as it was sent: its length and SHA-256 (lowercase hex).
public struct SentFile: Sendable, Hashable {
    public var size: Int64
    public var sha256: String

    public init(size: Int64, sha256: String) {
        self.size = size
        self.sha256 = sha256
    }
}

/// A task as the engine reports it: a value, safe to keep and compare.
public struct TaskSnapshot: Sendable, Hashable, Identifiable {
    public let id: TaskID
    public var request: UploadRequest
    public var priority: TaskPriority
    /// Where it starts among the queued tasks of its priority, lowest
    /// first: the order of adding, until `UploadEngine.move` changes it.
    public var sequence: Int
    public var dependency: TaskID?
    public var state: TaskState
    public var progress: UploadProgress
    /// Attempts started so far.
    public var attempts: Int
    public var response: UploadResponse? {
        get { sharedResponse?.value }
        set { sharedResponse = newValue.map(SharedValue.init) }
    }
    /// The server answered before the whole body was sent (413, nginx `return 200`...).
    public var answeredEarly: Bool
    /// An attempt's whole body was written before its connection broke or
    /// its answer timed out, and a later attempt sent it again: the server
    /// may hold two copies. Only for one-exchange requests; a resumable
    /// transfer asks the server what it holds instead.
    public var possibleDuplicate = false
    /// The wait chosen before the latest retry (backoff, or the server's Retry-After).
    public var retryDelay: Duration? = nil
    /// A resumable transfer's last durable state (tus: upload URL and offset).
    public var checkpoint: TransferCheckpoint? {
        get { sharedCheckpoint?.value }
        set { sharedCheckpoint = newValue.map(SharedValue.init) }
    }
    // Boxed: most tasks have neither while queued, and every event copies the snapshot.
    private var sharedResponse: SharedValue<UploadResponse>? = nil
    private var sharedCheckpoint: SharedValue<TransferCheckpoint>? = nil
    /// Bytes the server already held when the current attempt went on from
    /// a checkpoint; `nil` when it started from byte 0.
    public var resumedFrom: Int64? = nil
    /// A resumable upload that failed because its server could not be
    /// reached, left open on the server and in the journal for `hoist
    /// resume` (`Configuration.keepsUnreachableUploads`).
    public var keptForResume = false
    /// What the transfer's driver wants the user to know, e.g. that the
    /// server had lost a tus upload and it started again from 0.
    public var note: String? = nil
    /// The images as they were prepared for sending, once they are.
    public var preparedImages: [PreparedImage] = []
    /// The files of the body as the last attempt read them, in the body's
    /// order: only in the `.finished` event, only when the engine was asked
    /// (`Configuration.digestsSentFiles`) and the body was small enough to be
    /// read whole before sending. The history uses them instead of reading
    /// each file again.
    public var sentFiles: [SentFile]? = nil
    /// Each file of the body as stat saw it when `add` checked it, in
    /// `request.body.filePaths` order: only in the `.added` event, for a
    /// journal that would otherwise stat every file again.
    public var fileSnapshots: [FileSnapshot]? = nil
    public var addedAt: ContinuousClock.Instant
    public var startedAt: ContinuousClock.Instant?
    public var finishedAt: ContinuousClock.Instant?

    public init(
        id: TaskID, request: UploadRequest, priority: TaskPriority = .normal, dependency: TaskID? = nil,
        state: TaskState = .queued, progress: UploadProgress = UploadProgress(), attempts: Int = 0,
        response: UploadResponse? = nil, answeredEarly: Bool = false, addedAt: ContinuousClock.Instant = .now,
        startedAt: ContinuousClock.Instant? = nil, finishedAt: ContinuousClock.Instant? = nil
    ) {
        self.id = id
        self.request = request
        self.priority = priority
        self.sequence = id.rawValue
        self.dependency = dependency
        self.state = state
        self.progress = progress
        self.attempts = attempts
        self.answeredEarly = answeredEarly
        self.addedAt = addedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.response = response
    }

    /// The order queued tasks start in: higher priority first, then lower sequence.
    public static func startsBefore(_ a: TaskSnapshot, _ b: TaskSnapshot) -> Bool {
        SchedulerIndex.QueueKey(a) < SchedulerIndex.QueueKey(b)
    }

    public var failure: UploadFailure? {
        if case .failed(let failure) = state { return failure }
        return nil
    }

    /// Stopped by `UploadEngine.pause`, to go on with `retry`.
    public var isPaused: Bool { state.isPaused }

    /// Left unfinished by an earlier run (see `TaskState.interrupted`).
    public var isInterrupted: Bool {
        if case .interrupted = state { return true }
        return false
    }
}
