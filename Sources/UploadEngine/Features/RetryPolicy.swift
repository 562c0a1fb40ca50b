/// When and how long to wait before trying again: exponential backoff with
/// jitter on connection errors, timeouts and 408/429/500/502/503/504, and
/// `Retry-After` honoured.
public struct RetryPolicy: Sendable, Hashable, Codable {
    /// Retries after the first attempt.
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A server's Retry-After is honoured up to this long.
    public var maxRetryAfter: Duration
    public var retryableStatuses: Set<Int>
    /// A POST or PATCH whose whole body was sent, and whose answer never
    /// came, is sent again (`--retry-after-sent`): the server may then
    /// hold it twice. Off by default; a PUT goes again anyway, and a
    /// resumable transfer asks the server what it holds.
    public var retriesAfterSent: Bool

    public init(
        maxRetries: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(300),
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        retriesAfterSent: Bool = false
    ) {
        self.retriesAfterSent = retriesAfterSent
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatuses = retryableStatuses
    }

    public static let none = RetryPolicy(maxRetries: 0)

    /// A resumable transfer loses nothing by waiting, so a server that is
    /// away (restarting, a deploy, a dropped link) gets this many times the
    /// retries, the waits capped at `maxDelay`: 3 retries become 12, about
    /// three and a half minutes.
    public static let outageFactor = 4

    private enum CodingKeys: String, CodingKey {
        case maxRetries, baseDelay, maxDelay, maxRetryAfter, retryableStatuses, retriesAfterSent
    }

    // Journals written before `retriesAfterSent` have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxRetries = try container.decode(Int.self, forKey: .maxRetries)
        baseDelay = try container.decode(Duration.self, forKey: .baseDelay)
        maxDelay = try container.decode(Duration.self, forKey: .maxDelay)
        maxRetryAfter = try container.decode(Duration.self, forKey: .maxRetryAfter)
        retryableStatuses = try container.decode(Set<Int>.self, forKey: .retryableStatuses)
        retriesAfterSent = try container.decodeIfPresent(Bool.self, forKey: .retriesAfterSent) ?? false
    }

    /// The wait before attempt `attempt + 1`, after attempt `attempt` (1-based)
    /// failed; `nil` when no retry is due. `jitter` is in 0...1. `inDoubt`:
    /// a resumable transfer's driver asks the server before it goes on, so
    /// any failure is worth that. `resumable`: nothing sent is lost by a
    /// retry, so an outage is waited out longer (`outageFactor`).
    public func delay(
        afterAttempt attempt: Int, failure: UploadFailure, retryAfter: Duration?, jitter: Double,
        inDoubt: Bool = false, resumable: Bool = false
    ) -> Duration? {
        let budget = resumable && Self.isOutage(failure) ? maxRetries * Self.outageFactor : maxRetries
        guard attempt <= budget, inDoubt || isRetryable(failure) else { return nil }
        if let retryAfter { return min(retryAfter, maxRetryAfter) }
        let exponent = min(attempt - 1, 20)
        let backoff = min(baseDelay * (1 << exponent), maxDelay)
        // "Equal jitter": half fixed, half random, so waits spread but never collapse to zero.
        return backoff / 2 + backoff / 2 * jitter
    }

    /// The server cannot be reached or says it is unavailable.
    static func isOutage(_ failure: UploadFailure) -> Bool {
        switch failure {
        case .connectionFailed, .connectTimeout, .connectionLost, .idleTimeout, .answerTimeout: return true
        case .httpStatus(let status, _): return [502, 503, 504].contains(status)
        default: return false
        }
    }

    public func isRetryable(_ failure: UploadFailure) -> Bool {
        switch failure {
        case .connectionFailed, .connectTimeout, .idleTimeout, .answerTimeout, .connectionLost: return true
        case .httpStatus(let status, _): return retryableStatuses.contains(status)
        default: return false
        }
    }
}
