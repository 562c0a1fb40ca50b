import Hummingbird

/// Reads an incoming request body chunk by chunk and applies the server-wide limits and knobs on the way:
/// counts bytes, enforces `maxBodySize`, fires the `resetFirst` reset, and throttles to `readBytesPerSecond`.
/// (FormData's `BodyReader` is the other direction: it produces the bytes of a body to send.)
struct IncomingBodyReader {
    private var iterator: RequestBody.AsyncIterator
    private let limit: Int64?
    private let resetAfter: Int64?
    private let bytesPerSecond: Int?
    /// For the 408's message; `ConnectionDeadlines` keeps the time.
    private let idleTimeout: Duration
    private let clock = ContinuousClock()
    private var startedAt: ContinuousClock.Instant?
    private(set) var bytesRead: Int64 = 0
    /// True once the end of the body was seen.
    private(set) var finished = false

    /// - Parameter resetAfter: throw ``ReceiverError/resetConnection`` once this many bytes arrived (or at the end).
    init(body: RequestBody, limit: Int64?, resetAfter: Int64?, bytesPerSecond: Int?, idleTimeout: Duration) {
        self.iterator = body.makeAsyncIterator()
        self.idleTimeout = idleTimeout
        self.limit = limit
        self.resetAfter = resetAfter
        self.bytesPerSecond = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
    }

    mutating func next() async throws(ReceiverError) -> ByteBuffer? {
        if finished { return nil }
        if startedAt == nil { startedAt = clock.now }
        let chunk: ByteBuffer?
        do {
            chunk = try await iterator.next()
        } catch is ConnectionDeadlines.BodyStalled {
            throw .requestTimeout(
                "no bytes of the body arrived for \(ConnectionDeadlines.seconds(idleTimeout)) s (--idle-timeout)")
        } catch {
            throw .clientGone("the request body could not be read: \(error)")
        }
        guard let chunk else {
            finished = true
            if resetAfter != nil { throw .resetConnection }
            return nil
        }
        bytesRead += Int64(chunk.readableBytes)
        if let resetAfter, bytesRead >= resetAfter { throw .resetConnection }
        if let limit, bytesRead > limit {
            throw .payloadTooLarge("body is larger than the limit of \(limit) bytes")
        }
        if let bytesPerSecond, let startedAt {
            let due = startedAt + .seconds(Double(bytesRead) / Double(bytesPerSecond))
            if due > clock.now {
                try? await Task.sleep(until: due, clock: clock)
            }
        }
        return chunk
    }

    /// Reads and discards the rest of the body, with the knobs applied.
    mutating func drain() async throws(ReceiverError) {
        while try await next() != nil {}
    }

    /// Reads and discards the rest of the body, ignoring the knobs and any error.
    mutating func discardRest() async {
        while !finished {
            guard let chunk = try? await iterator.next() else { break }
            bytesRead += Int64(chunk.readableBytes)
        }
        finished = true
    }
}
