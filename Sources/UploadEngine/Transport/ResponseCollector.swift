import AsyncHTTPClient
import FormData
import NIOCore
import NIOHTTP1

/// AsyncHTTPClient's delegate for one attempt: counts the body bytes really
/// written, notices an early answer, keeps the response body up to a cap,
/// and watches for idleness.
///
/// AsyncHTTPClient calls every method on the request's event loop
/// (`.delegate(on:)`), and the idle watchdog runs there too, so
/// the mutable state is confined to that loop.
final class ResponseCollector: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = CollectedResponse

    struct CollectedResponse: Sendable {
        var status: Int
        var headers: [HeaderField]
        var body: [UInt8]
        var bodyBytesReceived: Int64
        var version: String
    }

    struct Events: Sendable {
        /// Bytes written so far; throttled to about 20 calls a second. The
        /// last count comes with `bodySent` or `responseStarted`, in the same
        /// call, so the engine hops once for both.
        var progress: @Sendable (Int64) -> Void
        /// The body is sent and no answer has come one progress interval
        /// later. A quicker answer reports the sent body with the outcome
        /// instead: one hop to the engine per small upload, not two.
        var bodySent: @Sendable (Int64) -> Void
        var responseStarted: @Sendable (Int64) -> Void
    }

    let eventLoop: any EventLoop
    private let events: Events
    private let bodyCap: Int
    private let progressInterval = TimeAmount.milliseconds(50)

    private(set) var bytesSent: Int64 = 0
    private(set) var requestFullySent = false
    private(set) var responseStartedWhileSending = false
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var bodyBytesReceived: Int64 = 0
    /// The first count goes out one interval after the start: a small body
    /// is sent by then, and its count comes with `bodySent`.
    private var lastProgressReport = NIODeadline.now()
    private var lastActivity = NIODeadline.now()
    private var watchdog: RepeatedTask?
    private var bodySentReport: Scheduled<Void>?

    init(eventLoop: any EventLoop, bodyCap: Int, events: Events) {
        self.eventLoop = eventLoop
        self.bodyCap = bodyCap
        self.events = events
    }

    /// Fails `task` when nothing moved for `idle`, or when `mustStop` gives
    /// a reason. Call on the event loop.
    func startWatchdog(
        idle: TimeAmount, task: HTTPClient.Task<CollectedResponse>,
        mustStop: @escaping @Sendable (NIODeadline) -> (any Error)?
    ) {
        let period = TimeAmount.nanoseconds(min(max(idle.nanoseconds / 4, 20_000_000), 1_000_000_000))
        watchdog = eventLoop.scheduleRepeatedTask(initialDelay: period, delay: period) { [weak self] repeated in
            guard let self else { return repeated.cancel() }
            let now = NIODeadline.now()
            if let reason = now - self.lastActivity > idle ? IdleTimeout() : mustStop(now) {
                repeated.cancel()
                task.fail(reason: reason)
            }
        }
    }

    func stopTimers() {
        watchdog?.cancel()
        watchdog = nil
        bodySentReport?.cancel()
        bodySentReport = nil
    }

    func didSendRequestHead(task: HTTPClient.Task<CollectedResponse>, _ head: HTTPRequestHead) {
        lastActivity = .now()
    }

    func didSendRequestPart(task: HTTPClient.Task<CollectedResponse>, _ part: IOData) {
        lastActivity = .now()
        bytesSent += Int64(part.readableBytes)
        if lastActivity - lastProgressReport >= progressInterval {
            lastProgressReport = lastActivity
            events.progress(bytesSent)
        }
    }

    func didSendRequest(task: HTTPClient.Task<CollectedResponse>) {
        lastActivity = .now()
        requestFullySent = true
        let (report, sent) = (events.bodySent, bytesSent)
        bodySentReport = eventLoop.scheduleTask(in: progressInterval) { report(sent) }
    }

    func didReceiveHead(task: HTTPClient.Task<CollectedResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        lastActivity = .now()
        self.head = head
        if !requestFullySent {
            responseStartedWhileSending = true
            events.responseStarted(bytesSent)
        }
        return eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<CollectedResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        lastActivity = .now()
        bodyBytesReceived += Int64(buffer.readableBytes)
        let room = bodyCap - body.count
        if room > 0 {
            body += buffer.readableBytesView.prefix(room)
        }
        return eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<CollectedResponse>, _ error: any Error) {
        stopTimers()
    }

    func didFinishRequest(task: HTTPClient.Task<CollectedResponse>) throws -> CollectedResponse {
        stopTimers()
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return collected(head)
    }

    /// The answer, when AsyncHTTPClient failed a request as closed by the
    /// server although every byte of the body was written and the whole
    /// answer (by its Content-Length) came: a server that answers and closes
    /// at once can do so before AsyncHTTPClient has ended a streamed body,
    /// and it then drops a complete exchange (its `.close` on a response
    /// end while still "streaming").
    func answerBeforeClose(_ error: any Error, requestLength: Int64?) -> CollectedResponse? {
        guard let error = error as? HTTPClientError, error == .remoteConnectionClosed,
            let head, let requestLength, bytesSent == requestLength,
            let length = head.headers.first(name: "Content-Length").flatMap({ Int64($0) }),
            length == bodyBytesReceived
        else { return nil }
        return collected(head)
    }

    private func collected(_ head: HTTPResponseHead) -> CollectedResponse {
        CollectedResponse(
            status: Int(head.status.code),
            headers: head.headers.map { HeaderField($0.name, SharedHeaderValues.shared($0.value, of: $0.name)) },
            body: body,
            bodyBytesReceived: bodyBytesReceived,
            version: head.version.major >= 2
                ? "HTTP/\(head.version.major)" : "HTTP/\(head.version.major).\(head.version.minor)"
        )
    }
}

/// Thrown into a request that stayed idle too long.
struct IdleTimeout: Error {}

/// The values a server repeats from answer to answer (the type, the date of
/// this second, the server's name), one copy for all the answers kept: the
/// UI keeps every task's answer, and 10,000 small answers held about 1 MB of
/// the same `application/json` and `Date` strings. Only headers that carry
/// no secret are shared: a cookie or a challenge is never kept past its answer.
enum SharedHeaderValues {
    private static let lock = ThreadLock()
    nonisolated(unsafe) private static var seen: Set<String> = []
    private static let repeated: Set<String> = [
        "content-type", "date", "server", "connection", "cache-control", "vary", "content-encoding",
        "access-control-allow-origin", "x-content-type-options", "strict-transport-security", "keep-alive",
    ]

    static func shared(_ value: String, of name: String) -> String {
        // Up to 15 bytes a string is stored inline: nothing to share.
        guard value.utf8.count > 15, repeated.contains(name.lowercased()) else { return value }
        return lock.withLock {
            if let index = seen.firstIndex(of: value) { return seen[index] }
            if seen.count >= 64 { seen.removeAll(keepingCapacity: true) }
            seen.insert(value)
            return value
        }
    }
}
