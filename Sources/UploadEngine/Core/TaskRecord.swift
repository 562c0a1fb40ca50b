import Dispatch
import FormData

/// One task's state in the engine, touched only on the engine's queue. A
/// class, so the engine reads and changes a task in place instead of
/// copying the whole record (request, snapshot, body) out of the dictionary
/// and back on every event. What only some tasks have (a tus or S3 driver,
/// prepared images) is `@OutOfLine`, so a plain task's record stays small.
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
    /// A tus task's driver, kept across attempts: it knows the upload URL
    /// and the server's offset.
    @OutOfLine var tus: TusTransferStateMachine? = nil
    /// Bytes written by each lane's exchange under way, not yet confirmed.
    var tusInFlight: [Int: Int64] = [:]
    /// Each lane's next chunks, read and hashed ahead (see `PreparedDigest`).
    var tusPrepared: [Int: [PreparedDigest]] = [:]
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
    /// An S3 multipart task's driver, kept across attempts: it knows the
    /// UploadId and the parts the server confirmed.
    @OutOfLine var s3: S3MultipartStateMachine? = nil
    /// A multipart upload of an earlier run's prepared image, aborted when an attempt has keys.
    @OutOfLine var abandonedS3: S3Checkpoint? = nil
    /// The keys found when the attempt began (never stored in the request).
    @OutOfLine var s3Signer: SigV4? = nil
    /// Bytes written by each part under way, by part number.
    var s3InFlight: [Int: Int64] = [:]
    /// MD5s of the parts to send next, computed ahead.
    var s3Prepared: [Int: PreparedDigest] = [:]

    /// The request as it goes: with its prepared images once they are ready.
    var sending: UploadRequest { imageRequest ?? snapshot.request }

    init(snapshot: TaskSnapshot, sequence: Int, dedupeHash: Int, prepared: RequestBody?) {
        self.snapshot = snapshot
        self.snapshot.sequence = sequence
        self.dedupeHash = dedupeHash
        self.prepared = prepared
    }
}
