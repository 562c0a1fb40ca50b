import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// The embedded HTTP receiver: a Hummingbird 2 server that accepts uploads and says what it got.
///
/// It backs the engine's tests, `hoist demo` and `hoist receive`. Bodies are streamed: multipart
/// file parts and raw bodies go to disk as they arrive, through SHA-256, so memory stays bounded.
///
/// **What it answers.** `POST`, `PUT` and `PATCH` on any path get 200 and a ``ReceivedUpload`` as JSON:
/// - `multipart/form-data`: parts without a filename become `fields`, parts with one become `files`;
/// - `application/x-www-form-urlencoded`: `fields`;
/// - `application/json` (and `+json` types): the document echoed under `json` (up to 8 MiB; a larger
///   body is saved as a file); invalid JSON gets 400;
/// - anything else: one file named after the last URL path component (or `body`).
///
/// Files are saved in ``ReceiverConfiguration/directory`` under a sanitised name (`../../etc/passwd`
/// becomes `passwd`; see `FileNameSanitizer`), suffixed when taken (`photo-1.jpg`). Chunked bodies work
/// for all kinds. `GET /` answers `{"receiver":"hoist","status":"ok"}`. Errors are JSON
/// `{"error": "..."}`: 400 malformed body, 413 too large, 500 a file could not be written (partial
/// files of a failed request are removed).
///
/// **tus.** Under ``ReceiverConfiguration/tusPath`` (`/files`) it speaks tus 1.0 instead: creation (with
/// upload, deferred length), core, termination, checksum (sha1, sha256, sha384, sha512, md5),
/// concatenation, and expiration when ``ReceiverConfiguration/tusExpiration`` is set. Unfinished uploads wait in `.tus/` inside the directory and survive a restart; a complete
/// one is saved like any file, under its `filename` metadata. ``TusKnobs`` make it fail on purpose, and
/// ``tusRequests()`` lists what it was sent. See `Tus/`.
///
/// **Cloud Storage.** Under `/upload/storage/v1/b/` it speaks Google Cloud Storage's resumable upload
/// protocol (JSON API), and serves the objects under `/storage/v1/b/`, unless
/// ``ReceiverConfiguration/servesGCS`` is false. See `GCS/`.
///
/// **Server-wide knobs** (``ReceiverConfiguration``), counting every request in order of arrival:
/// - `failFirst`: the first N requests get 503 with `Retry-After: retryAfterSeconds`, after their body was
///   read and discarded;
/// - `resetFirst`: the first N requests get no answer: their connection is reset (TCP RST) once
///   `resetAfterBodyBytes` body bytes arrived (0: right after the headers). Their partial files are removed;
/// - `maxBodySize`: a larger body gets 413; a `Content-Length` above it is refused before reading the body;
/// - `latency`: added before every answer;
/// - `readBytesPerSecond`: reads bodies no faster than this.
///
/// **Per-request query knobs**, honoured only with `allowsTestKnobs` (waits of at most 60 s):
/// - `?status=N`: read the body as usual, then answer with status N (200...599) and the usual JSON;
/// - `?reply=invalid-json`: answer 200 `application/json` with the body `{"broken": `;
/// - `?reply=text`: answer 200 `text/plain` `hello from hoist receiver`;
/// - `?reply=verify`: answer like an ID-card verification API: `RETCODE` "0000" and `RETMSG` "成功", or
///   "1001" for a photo whose name says `blurry` (the demo's route);
/// - `?json=DOC`: read the body, then answer exactly the percent-decoded DOC as `application/json`;
/// - `?early=1`: answer 200 `{"early":true}` before reading a byte of the body, like nginx's `return 200`;
/// - `?delay=MS`: wait MS milliseconds after reading the body, before answering;
/// - `?stall=MS`: after the headers, do not read the body for MS milliseconds, then go on normally.
///
/// **Closing.** An answer written before the whole body was read (`?early=1`, 413, a malformed body)
/// carries `Connection: close`; the receiver then goes on reading and discarding the body (up to 30 s
/// after a 2xx, so a client that finishes uploading before it reads the answer still succeeds, 2 s after
/// an error) and closes. A request with `Expect: 100-continue` gets `100 Continue` just before its body
/// is read, and no `100` when it is answered early.
public final class Receiver: Sendable {
    private struct State {
        var shutdown: (@Sendable () async -> Void)?
        var task: Task<Void, Never>?
        var port = 0
    }

    public let configuration: ReceiverConfiguration
    private let log: (@Sendable (ReceiverLogEntry) -> Void)?
    private let state = NIOLockedValueBox(State())
    private let requests = NIOLockedValueBox(0)
    /// The tus endpoint (see `Tus/`); nil when ``ReceiverConfiguration/tusPath`` is nil.
    let tus: TusService?
    /// The Cloud Storage endpoint (see `GCS/`); nil when ``ReceiverConfiguration/servesGCS`` is false.
    let gcs: GCSService?

    public init(configuration: ReceiverConfiguration, log: (@Sendable (ReceiverLogEntry) -> Void)? = nil) {
        self.configuration = configuration
        self.log = log
        self.tus = TusService(configuration: configuration)
        self.gcs = GCSService(configuration: configuration)
    }

    /// Creates the directory, binds and returns once the server is listening.
    public func start() async throws {
        guard state.withLockedValue({ $0.shutdown == nil }) else { return }
        let directory = UploadDirectory(path: configuration.directory)
        try directory.create()
        tus?.store.load()

        let (head, idle) = (configuration.headTimeout, configuration.idleTimeout)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionDeadlines(headTimeout: head, idleTimeout: idle)])
        let handler = RequestHandler(
            configuration: configuration, directory: directory, requests: requests, tus: tus, gcs: gcs, log: log)
        let responder: HTTPChannelHandler.Responder = { request, writer, channel in
            await handler.handle(request, writer: writer, channel: channel)
        }
        if let tls = configuration.tls {
            let tlsConfiguration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(tls.certificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.keyPath, format: .pem)))
            try await launch(
                HTTP2UpgradeChannel(
                    tlsConfiguration: tlsConfiguration,
                    configuration: .init(idleTimeout: configuration.idleTimeout, streamConfiguration: http1),
                    responder: responder))
        } else {
            try await launch(HTTP1Channel(responder: responder, configuration: http1))
        }
    }

    private func launch<Channel: ServerChildChannel>(_ childChannelSetup: Channel) async throws {
        let (bound, boundContinuation) = AsyncStream<Int>.makeStream()
        let server = Server(
            childChannelSetup: childChannelSetup,
            configuration: ServerConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port ?? 0)
                boundContinuation.finish()
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "hoist.receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let failure = NIOLockedValueBox<(any Error)?>(nil)
        let task = Task {
            do {
                try await server.run()
            } catch {
                failure.withLockedValue { $0 = error }
            }
            boundContinuation.finish()
        }
        var iterator = bound.makeAsyncIterator()
        guard let port = await iterator.next() else {
            let error = failure.withLockedValue { $0 }
            throw error ?? ReceiverError.saveFailed("the receiver stopped before it was listening")
        }
        state.withLockedValue {
            $0.shutdown = { try? await server.shutdownGracefully() }
            $0.task = task
            $0.port = port
        }
    }

    /// The bound port, valid after `start()`.
    public var port: Int {
        state.withLockedValue { $0.port }
    }

    /// `http://HOST:PORT` (`https://` with TLS), valid after `start()`.
    public var baseURL: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(configuration.tls == nil ? "http" : "https")://\(host):\(port)"
    }

    /// Requests received so far (counted on arrival).
    public var requestCount: Int {
        requests.withLockedValue { $0 }
    }

    /// Lets requests in progress finish, closes idle connections and frees the port. A request still
    /// running after 5 s (a stalled client) is cancelled.
    public func stop() async {
        let (shutdown, task) = state.withLockedValue { state in
            defer {
                state.shutdown = nil
                state.task = nil
            }
            return (state.shutdown, state.task)
        }
        guard let shutdown, let task else { return }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(5))
            task.cancel()
        }
        await shutdown()
        await task.value
        watchdog.cancel()
    }
}
