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
    /// With no write done for this long, the count is told again: speed and
    /// ETA then fall while a slow receiver holds the socket full, instead of
    /// keeping the rate of the burst that filled it.
    private let stalledInterval = TimeAmount.milliseconds(500)

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
    /// The watchdog's settings and its next look, once started.
    private var watch:
        (
            idle: TimeAmount, answer: TimeAmount, period: TimeAmount, next: NIODeadline,
            task: HTTPClient.Task<CollectedResponse>, mustStop: @Sendable (NIODeadline) -> (any Error)?
        )?
    /// When the body was all written, until `bodySent` is told.
    private var bodySentAt: NIODeadline?
    private var ticker: CollectorTicker?
    private var stopped = false

    init(eventLoop: any EventLoop, bodyCap: Int, events: Events) {
        self.eventLoop = eventLoop
        self.bodyCap = bodyCap
        self.events = events
    }

    /// Fails `task` when nothing moved for `idle` (for `answer` between the
    /// body's last byte and the answer's first), or when `mustStop` gives
    /// a reason: looked at every `idle / 4` (20 ms to 1 s) by `ticker`,
    /// which also tells `bodySent` when due. Call on the event loop.
    func startWatchdog(
        idle: TimeAmount, answer: TimeAmount, task: HTTPClient.Task<CollectedResponse>, ticker: CollectorTicker,
        mustStop: @escaping @Sendable (NIODeadline) -> (any Error)?
    ) {
        guard !stopped else { return }  // the answer came first
        let period = TimeAmount.nanoseconds(min(max(idle.nanoseconds / 4, 20_000_000), 1_000_000_000))
        watch = (idle, answer, period, .now() + period, task, mustStop)
        self.ticker = ticker
        ticker.add(self)
    }

    /// On the event loop, from the ticker.
    func tick(_ now: NIODeadline) {
        if let sentAt = bodySentAt, now - sentAt >= progressInterval {
            bodySentAt = nil
            events.bodySent(bytesSent)
        }
        if !requestFullySent, now - lastProgressReport >= stalledInterval {
            lastProgressReport = now
            events.progress(bytesSent)
        }
        guard let watch, now >= watch.next else { return }
        self.watch?.next = now + watch.period
        let awaitingAnswer = requestFullySent && head == nil
        let quiet = now - lastActivity > (awaitingAnswer ? watch.answer : watch.idle)
        if let reason = quiet ? (awaitingAnswer ? AnswerTimeout() as any Error : IdleTimeout()) : watch.mustStop(now) {
            stopTimers()
            watch.task.fail(reason: reason)
        }
    }

    func stopTimers() {
        stopped = true
        watch = nil
        bodySentAt = nil
        ticker?.remove(self)
        ticker = nil
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
        if !stopped { bodySentAt = lastActivity }
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
struct AnswerTimeout: Error {}

/// The clock of every running request on one event loop: one repeated task
/// looks at each collector's watchdog and delayed report. A task scheduled
/// and cancelled per request (two, with the report) cost more than all the
/// rest Hoist does on the loop for a small upload. It runs while requests
/// do, and stops at the first tick that finds none. Touched only on `eventLoop`.
final class CollectorTicker: @unchecked Sendable {
    let eventLoop: any EventLoop
    private var collectors: [ResponseCollector] = []
    private var repeated: RepeatedTask?
    /// The watchdog's shortest period, and the report's delay within 20 ms.
    static let interval = TimeAmount.milliseconds(20)

    init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func add(_ collector: ResponseCollector) {
        collectors.append(collector)
        guard repeated == nil else { return }
        repeated = eventLoop.scheduleRepeatedTask(initialDelay: Self.interval, delay: Self.interval) {
            [weak self] repeated in
            // Gone with its transport, once no request held it.
            guard let self else { return repeated.cancel() }
            self.tick()
        }
    }

    func remove(_ collector: ResponseCollector) {
        guard let index = collectors.firstIndex(where: { $0 === collector }) else { return }
        collectors.swapAt(index, collectors.count - 1)
        collectors.removeLast()
    }

    private func tick() {
        guard !collectors.isEmpty else {
            repeated?.cancel()
            repeated = nil
            return
        }
        let now = NIODeadline.now()
        for collector in collectors { collector.tick(now) }
    }
}

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
