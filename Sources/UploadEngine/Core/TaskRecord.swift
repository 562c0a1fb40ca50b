import Dispatch
import FormData

/// One task's state in the engine, touched only on the engine's queue. A
/// class, so the engine reads and changes a task in place instead of
/// copying the whole record (request, snapshot, body) out of the dictionary
/// and back on every event. What only some tasks have (a driver, prepared
/// images) is a reference or `@OutOfLine`, so a plain task's record stays small.
final class TaskRecord {
    var snapshot: TaskSnapshot
    var machine = UploadTaskStateMachine()
    /// The running or last attempt's state machine; nil before the first start.
    @OutOfLine var attemptMachine: UploadAttemptStateMachine? = nil
    /// The snapshot's, which `move` changes.
    var sequence: Int {
        get { snapshot.sequence }
        set { snapshot.sequence = newValue }
    }
    /// The request's `DedupeKey.hash`.
    var dedupeHash: Int
    var attempt: HTTPTransport.Attempt?
    var retryTimer: DispatchWorkItem?
    var meter = ProgressMeter()
    /// The body encoded by `add`, for the first attempt; the transport
    /// uses it only while every file still matches its snapshot.
    var prepared: RequestBody?
    /// The request as sent once its images were prepared (`UploadRequest.images`); kept for retries.
    @OutOfLine var imageRequest: UploadRequest? = nil
    /// Why its images could not be prepared, when preparing ahead found out before the task started.
    var imageFailure: ImagePrepError?
    /// The attempt waiting for its images, prepared ahead or in its slot.
    var attemptAwaitingImages: Int?
    /// A resumable task's driver (tus, S3), kept across attempts.
    var driver: (any TransferDriver)?
    /// Standard input being sent (a tus upload of deferred length, or S3).
    var stream: StreamBuffer?
    /// The answer to a resumable driver's latest exchange (tus or S3): the
    /// task's response when it ends, and its `Retry-After`.
    @OutOfLine var lastAnswer: UploadResponse? = nil
    var lastRetryAfter: Duration?
    /// The server's offset when the attempt began, and the resumable
    /// attempts in a row that did not move it (the retry policy counts those).
    var attemptStartOffset: Int64 = 0
    var stalledAttempts = 0

    /// The request as it goes: with its prepared images once they are ready.
    var sending: UploadRequest { imageRequest ?? snapshot.request }

    init(snapshot: TaskSnapshot, sequence: Int, dedupeHash: Int, prepared: RequestBody?) {
        self.snapshot = snapshot
        self.snapshot.sequence = sequence
        self.dedupeHash = dedupeHash
        self.prepared = prepared
    }
}
