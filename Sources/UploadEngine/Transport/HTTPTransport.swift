import AsyncHTTPClient
import FormData
import FoundationEssentials
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Sends attempts over AsyncHTTPClient. One shared `HTTPClient` serves every
/// request with the same transport settings (connect timeout, TLS
/// verification, proxy), so connections are pooled.
final class HTTPTransport: Sendable {
    struct Outcome: Sendable {
        var result: Result<UploadResponse, UploadFailure>
        var bytesSent: Int64
        /// A response head arrived before the body's last write completed.
        var answeredEarly: Bool
        var requestFullySent: Bool = false
        var retryAfter: Duration?
        /// What the server holds is in doubt: worth a retry that asks it first.
        var inDoubt = false
    }

    struct Callbacks: Sendable {
        /// Bytes written so far.
        var progress: @Sendable (Int64) -> Void
        /// The body's last byte was written; carries the bytes written.
        var bodySent: @Sendable (Int64) -> Void
        /// The answer began before the body was sent; carries the bytes written.
        var responseStarted: @Sendable (Int64) -> Void
        var completed: @Sendable (Outcome) -> Void

        /// Ends the attempt before a byte was sent.
        func fail(_ failure: UploadFailure) {
            completed(Outcome(result: .failure(failure), bytesSent: 0, answeredEarly: false, retryAfter: nil))
        }
    }

    /// Cancels one running attempt.
    final class Attempt: Sendable {
        /// The body's exact length for this attempt; `nil` when chunked or not started.
        let contentLength = NIOLockedValueBox<Int64?>(nil)
        /// The body's files as read whole for this attempt (`digestsSentFiles`).
        let sentFiles = NIOLockedValueBox<[SentFile]?>(nil)
        private let task = NIOLockedValueBox<HTTPClient.Task<ResponseCollector.CollectedResponse>?>(nil)
        private let cancelled = NIOLockedValueBox(false)

        fileprivate func attach(_ task: HTTPClient.Task<ResponseCollector.CollectedResponse>) {
            self.task.withLockedValue { $0 = task }
            if cancelled.withLockedValue({ $0 }) { task.cancel() }
        }

        private let children = NIOLockedValueBox<[Attempt]>([])

        func cancel() {
            cancelled.withLockedValue { $0 = true }
            task.withLockedValue { $0 }?.cancel()
            for child in children.withLockedValue({ $0 }) { child.cancel() }
        }

        /// Makes `child` (one exchange of a transfer of several) end with this attempt.
        func adopt(_ child: Attempt) {
            children.withLockedValue { $0.append(child) }
            if cancelled.withLockedValue({ $0 }) { child.cancel() }
        }
    }

    private struct ClientKey: Hashable {
        var insecure: Bool
        var connectTimeout: Duration
        var proxy: ProxySettings.Server?
    }

    let insecure: Bool
    let responseBodyCap: Int
    let fileSending: FileSending
    let digestsSentFiles: Bool
    /// The bandwidth budget every body shares.
    let limiter = RateLimiter()
    private let proxies: ProxySettings
    /// `nil` once shut down: no client may be made after that, or it would
    /// never be shut down.
    private let clients = NIOLockedValueBox<[ClientKey: HTTPClient]?>([:])
    private let destinations = NIOLockedValueBox<[DestinationKey: Destination]>([:])
    private let eventLoopGroup: any EventLoopGroup
    private let tickers = NIOLockedValueBox<[ObjectIdentifier: CollectorTicker]>([:])
    private let trace: ExchangeTrace?

    init(
        insecure: Bool, responseBodyCap: Int, environment: [String: String], fileSending: FileSending,
        digestsSentFiles: Bool = false, trace: (@Sendable (String) -> Void)? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.trace = trace.map(ExchangeTrace.init)
        self.insecure = insecure
        self.digestsSentFiles = digestsSentFiles
        self.fileSending = fileSending
        self.responseBodyCap = responseBodyCap
        self.proxies = ProxySettings.fromEnvironment(environment)
        self.eventLoopGroup = eventLoopGroup
    }

    /// Checks a URL before anything is queued: http or https, with a host.
    static func validate(url: String) throws(UploadFailure) -> URL {
        guard url.contains("://") else {
            throw .invalidURL(url, reason: "it has no scheme: add http:// or https:// (https://\(url))")
        }
        guard let parsed = URL(string: url) else { throw .invalidURL(url, reason: "it cannot be parsed") }
        guard let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidURL(url, reason: "the scheme must be http or https")
        }
        guard let host = parsed.host, !host.isEmpty else { throw .invalidURL(url, reason: "it has no host") }
        return parsed
    }

    private struct DestinationKey: Hashable {
        var url: String
        var method: String
    }

    /// What a URL and method come to, worked out once for a batch of uploads
    /// to one place rather than once per request: parsing the URL, the proxy
    /// and loopback checks are a real share of a small upload's CPU.
    private struct Destination: Sendable {
        var proxy: ProxySettings.Server?
        var files: FileSending.Method
        /// Without headers and body, which each attempt sets.
        var request: HTTPClient.Request
    }

    private func destination(url: String, method: String) throws(UploadFailure) -> Destination {
        let key = DestinationKey(url: url, method: method)
        if let known = destinations.withLockedValue({ $0[key] }) { return known }
        let parsed = try Self.validate(url: url)
        let scheme = parsed.scheme!.lowercased()
        let proxy = proxies.server(scheme: scheme, host: parsed.host!)
        let template: HTTPClient.Request
        do {
            // The URL parsed by `validate`, not its string: AsyncHTTPClient would parse that again.
            template = try HTTPClient.Request(url: parsed, method: HTTPMethod(rawValue: key.method))
        } catch {
            throw .invalidURL(url, reason: "\(error)")
        }
        let destination = Destination(
            proxy: proxy,
            files: fileSending.method(scheme: scheme, host: parsed.host!, proxied: proxy != nil),
            request: template)
        destinations.withLockedValue { $0[key] = destination }
        return destination
    }

    /// Starts one attempt. `prepared` is the body as `add` encoded it: it is
    /// sent as it is when every file in it still matches its snapshot (what
    /// encoding again would find), and encoded again otherwise. A small
    /// prepared body is first read whole from the page cache, which checks
    /// each file against its snapshot on the open descriptor: no stat by path.
    func start(_ request: UploadRequest, attempt number: Int, prepared: RequestBody? = nil, callbacks: Callbacks)
        -> Attempt
    {
        let attempt = Attempt()
        let body: RequestBody
        /// A small body read whole from the page cache, tried once per attempt.
        var whole: ByteBuffer?
        do {
            if let prepared, let buffer = Self.readWholeIfSmallAndCached(prepared) {
                body = prepared
                whole = buffer
            } else if let prepared, prepared.filesMatchSnapshots() {
                body = prepared
            } else {
                body = try request.body.encode()
                whole = Self.readWholeIfSmallAndCached(body)
            }
        } catch {
            callbacks.fail(.input(error))
            return attempt
        }
        send(
            method: request.method.rawValue, url: request.url, headers: request.headers, body: body, whole: whole,
            timeouts: request.timeouts, attempt: attempt, digests: digestsSentFiles, callbacks: callbacks)
        return attempt
    }

    /// One exchange of a transfer of several (tus): method, URL and headers
    /// as given; `body` when it carries bytes, `whole` when they are read already.
    func exchange(
        method: String, url: String, headers: [HeaderField], body: RequestBody?, whole: ByteBuffer? = nil,
        timeouts: Timeouts, callbacks: Callbacks
    ) -> Attempt {
        let attempt = Attempt()
        send(
            method: method, url: url, headers: headers, body: body, whole: whole, timeouts: timeouts,
            attempt: attempt, callbacks: callbacks)
        return attempt
    }

    /// `digests`: the attempt tells the files it sent (`Attempt.sentFiles`) when it reads the body whole.
    private func send(
        method: String, url: String, headers fields: [HeaderField], body: RequestBody?, whole: ByteBuffer?,
        timeouts: Timeouts, attempt: Attempt, digests: Bool = false, callbacks: Callbacks
    ) {
        let started = ContinuousClock.now
        let callbacks =
            trace?.traced(method: method, url: url, length: body.map { $0.contentLength }, callbacks) ?? callbacks
        let destination: Destination
        do {
            destination = try self.destination(url: url, method: method)
        } catch {
            callbacks.fail(error)
            return
        }
        attempt.contentLength.withLockedValue { $0 = body == nil ? 0 : body!.contentLength }
        guard
            let client = client(
                for: ClientKey(insecure: insecure, connectTimeout: timeouts.connect, proxy: destination.proxy))
        else {
            callbacks.fail(.cancelled(reason: "the engine shut down"))
            return
        }

        var headers = HTTPHeaders()
        for header in fields
        where !["content-type", "content-length", "transfer-encoding"].contains(header.name.lowercased()) {
            headers.add(name: header.name, value: header.value)
        }
        let explicitType = fields.last(where: { $0.name.lowercased() == "content-type" })?.value
        if let type = explicitType ?? body?.contentType { headers.replaceOrAdd(name: "Content-Type", value: type) }
        if !headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: "hoist/0.1") }

        let eventLoop = eventLoopGroup.next()
        let streamer = BodyStreamer(
            body: body ?? RequestBody(contentType: "", segments: []), files: destination.files, limiter: limiter,
            whole: whole)
        var template = destination.request
        template.headers = headers
        let execute = { @Sendable [template] (httpBody: HTTPClient.Body?) in
            var httpRequest = template
            httpRequest.body = httpBody
            self.execute(
                httpRequest, timeouts: timeouts, client: client, streamer: streamer,
                on: eventLoop, started: started, attempt: attempt, callbacks: callbacks)
        }
        guard let body else { return execute(nil) }
        // Under a rate limit every body streams through the limiter, even one read whole.
        let limited = limiter.bytesPerSecond != nil
        if let whole {
            execute(limited ? streamer.makeBody(on: eventLoop) : .byteBuffer(whole))
            // Hashed once the request is handed over, so the hash overlaps its
            // writing; the attempt's end comes after it, on this same queue.
            if digests { attempt.sentFiles.withLockedValue { $0 = BodyStreamer.sentFiles(of: body, in: whole) } }
            return
        }
        if !limited {
            if let length = body.contentLength, length <= BodyStreamer.smallBodyLimit {
                // Read first, then send one buffer: for a small body one write
                // costs less than sendfile's set-up or a stream of writes.
                NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
                    let buffer = try BodyStreamer.readWhole(body)
                    if digests {
                        attempt.sentFiles.withLockedValue { $0 = BodyStreamer.sentFiles(of: body, in: buffer) }
                    }
                    return buffer
                }
                .whenComplete { result in
                    switch result {
                    case .success(let buffer): execute(.byteBuffer(buffer))
                    case .failure(let error as FormDataError): callbacks.fail(.input(error))
                    case .failure(let error): callbacks.fail(.other("\(error)"))
                    }
                }
                return
            }
        }
        execute(streamer.makeBody(on: eventLoop))
    }

    private static func readWholeIfSmallAndCached(_ body: RequestBody) -> ByteBuffer? {
        guard let length = body.contentLength, length <= BodyStreamer.smallBodyLimit else { return nil }
        return BodyStreamer.readWholeIfCached(body)
    }

    private func execute(
        _ httpRequest: HTTPClient.Request, timeouts: Timeouts, client: HTTPClient,
        streamer: BodyStreamer, on eventLoop: any EventLoop, started: ContinuousClock.Instant, attempt: Attempt,
        callbacks: Callbacks
    ) {
        let collector = ResponseCollector(
            eventLoop: eventLoop,
            bodyCap: responseBodyCap,
            events: .init(
                progress: callbacks.progress, bodySent: callbacks.bodySent, responseStarted: callbacks.responseStarted)
        )
        let deadline = timeouts.total.map { NIODeadline.now() + TimeAmount($0) }
        // The delegate runs on `eventLoop`; the connection may live on any loop,
        // so an idle pooled connection serves the next request wherever it is.
        let task = client.execute(
            request: httpRequest, delegate: collector, eventLoop: .delegate(on: eventLoop), deadline: deadline,
            logger: nil)
        attempt.attach(task)
        let ticker = ticker(for: eventLoop)
        eventLoop.execute {
            collector.startWatchdog(
                idle: TimeAmount(timeouts.idle), answer: TimeAmount(timeouts.answer), task: task, ticker: ticker,
                mustStop: streamer.reasonToStop)
        }
        task.futureResult.hop(to: eventLoop).whenComplete { result in
            collector.stopTimers()
            let changed = streamer.finish()
            let elapsed = ContinuousClock.now - started
            let answeredEarly = collector.responseStartedWhileSending
            var outcome = Outcome(
                result: .failure(.other("")), bytesSent: collector.bytesSent, answeredEarly: answeredEarly,
                requestFullySent: collector.requestFullySent, retryAfter: nil)
            switch (result, changed) {
            case (_, let changed?):
                // Also when the send failed: a file cut short under a mapped
                // write fails it with EFAULT, and the change is the cause.
                outcome.result = .failure(.input(changed))
            case (.success(let collected), nil):
                let response = UploadResponse(collected: collected, elapsed: elapsed)
                outcome.retryAfter = response.header("Retry-After").flatMap { RetryAfter.parse($0) }
                outcome.result = .success(response)
            case (.failure(let error), nil):
                if let answer = collector.answerBeforeClose(
                    error, requestLength: attempt.contentLength.withLockedValue { $0 })
                {
                    outcome.requestFullySent = true
                    outcome.result = .success(UploadResponse(collected: answer, elapsed: elapsed))
                } else {
                    outcome.result = .failure(UploadFailure(transportError: error, timeouts: timeouts))
                }
            }
            callbacks.completed(outcome)
        }
    }

    /// What the first request would set up, done ahead: the shared event
    /// loop's thread, and the Swift runtime's metadata for a client's
    /// configuration. Nothing outside the process.
    static func prewarm() {
        _ = MultiThreadedEventLoopGroup.singleton.next()
        _ = HTTPClient.Configuration(
            tlsConfiguration: TLSConfiguration.makeClientConfiguration(), redirectConfiguration: .disallow,
            decompression: .disabled)
    }

    /// The clock of the requests whose delegates run on `eventLoop`.
    private func ticker(for eventLoop: any EventLoop) -> CollectorTicker {
        tickers.withLockedValue { tickers in
            if let ticker = tickers[ObjectIdentifier(eventLoop)] { return ticker }
            let ticker = CollectorTicker(eventLoop: eventLoop)
            tickers[ObjectIdentifier(eventLoop)] = ticker
            return ticker
        }
    }

    /// The pooled client for these settings; nil once the transport shut down.
    private func client(for key: ClientKey) -> HTTPClient? {
        clients.withLockedValue { clients -> HTTPClient? in
            guard clients != nil else { return nil }
            if let existing = clients?[key] { return existing }
            var tls = TLSConfiguration.makeClientConfiguration()
            if key.insecure { tls.certificateVerification = .none }
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls,
                redirectConfiguration: .disallow,
                timeout: .init(connect: TimeAmount(key.connectTimeout), read: nil),
                proxy: key.proxy.map { .server(host: $0.host, port: $0.port) },
                decompression: .disabled
            )
            configuration.httpVersion = .automatic
            // No spans: by default each request opens one on the global no-op
            // tracer and sets its attributes, which a small upload feels.
            configuration.tracing.tracer = nil
            configuration.connectionPool = .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
            // Fail fast on a refused connection; the task's retry policy decides what happens next.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
            clients?[key] = client
            return client
        }
    }

    func shutdown() async {
        let all = clients.withLockedValue { clients in
            defer { clients = nil }
            return Array(clients?.values ?? [:].values)
        }
        for client in all { try? await client.shutdown() }
    }
}
