import Hummingbird
import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore

/// Answers one request: routes it by method and path, with the test knobs applied in their place, and
/// writes the answer. Reading the body by its Content-Type is ``RequestBodyDecoder``'s job; the knobs
/// are in `Knobs/`; writing and closing the connection in `RequestHandler+Connection.swift`.
struct RequestHandler: Sendable {
    /// How long to keep reading (and discarding) a body after answering early with a 2xx, so a client
    /// that finishes its upload before reading the answer still succeeds.
    static let drainAfterSuccess: Duration = .seconds(30)
    /// The same after an error answer: enough for the client to read the answer before the close.
    static let drainAfterError: Duration = .seconds(2)

    let configuration: ReceiverConfiguration
    let decoder: RequestBodyDecoder
    let requests: NIOLockedValueBox<Int>
    let log: (@Sendable (ReceiverLogEntry) -> Void)?
    /// The tus endpoint (`Tus/`), when on.
    let tus: TusService?
    /// The Cloud Storage endpoint (`GCS/`), when on.
    let gcs: GCSService?
    /// Where files are saved: error answers name paths relative to it, never the server's absolute path.
    let uploadFolder: String

    init(
        configuration: ReceiverConfiguration, directory: UploadDirectory, requests: NIOLockedValueBox<Int>,
        tus: TusService?, gcs: GCSService?, log: (@Sendable (ReceiverLogEntry) -> Void)?
    ) {
        self.configuration = configuration
        self.decoder = RequestBodyDecoder(
            directory: directory, maxParts: configuration.maxParts, maxTotalFieldBytes: configuration.maxTotalFieldBytes
        )
        self.requests = requests
        self.tus = tus
        self.gcs = gcs
        self.uploadFolder = directory.path
        self.log = log
    }

    private enum Outcome {
        case answer(Answer)
        case reset
        case gone
    }

    func handle(_ request: Request, writer: consuming ResponseWriter, channel: any Channel) async {
        let started = ContinuousClock.now
        let index = requests.withLockedValue { count in
            defer { count += 1 }
            return count
        }
        let resetAfter = configuration.resetAfterBodyBytes(forRequest: index)
        var reader = IncomingBodyReader(
            body: request.body, limit: configuration.maxBodySize, resetAfter: resetAfter,
            bytesPerSecond: configuration.readBytesPerSecond, idleTimeout: configuration.idleTimeout)

        var outcome: Outcome
        do throws(ReceiverError) {
            try RequestGate(configuration).check(request)
            if let tus, let route = tus.route(request.uri.path) {
                outcome = .answer(
                    try await answerTus(
                        request, route: route, tus: tus, index: index, resetAfter: resetAfter, reader: &reader,
                        writer: writer))
            } else if let gcs, let route = gcs.route(request.uri.path) {
                outcome = .answer(
                    try await answerGCS(
                        request, route: route, gcs: gcs, index: index, resetAfter: resetAfter, reader: &reader,
                        writer: writer, localPort: channel.localAddress?.port))
            } else {
                if resetAfter == 0 { throw .resetConnection }
                let knobs = configuration.allowsTestKnobs ? try RequestKnobs(query: request.uri.query) : RequestKnobs()
                if let early = try answerBeforeBody(request, index: index, knobs: knobs, resetting: resetAfter != nil) {
                    outcome = .answer(early)
                } else {
                    await knobs.stallBeforeBody()
                    if request.headers[.expect]?.lowercased() == "100-continue" {
                        try? await writer.writeInformationalHead(HTTPResponse(status: .continue))
                    }
                    outcome = .answer(try await answerAfterBody(request, index: index, knobs: knobs, reader: &reader))
                }
            }
        } catch {
            switch error {
            case .resetConnection: outcome = .reset
            case .clientGone: outcome = .gone
            case .unauthorized:
                var answer = Answer.error(401, error.message)
                answer.headers.append(("WWW-Authenticate", "Bearer"))
                outcome = .answer(answer)
            default: outcome = .answer(.error(error.status ?? 500, error.message))
            }
        }

        var status = 0
        var files = 0
        var fields = 0
        switch outcome {
        case .reset:
            await Self.reset(channel)
        case .gone:
            try? await channel.close()
        case .answer(let answer):
            if configuration.latency > .zero { try? await Task.sleep(for: configuration.latency) }
            status = answer.status
            files = answer.files
            fields = answer.fields
            let bodyLeft = !reader.finished
            do {
                try await write(answer, for: request, closing: bodyLeft, to: writer)
            } catch {
                status = 0
            }
            if bodyLeft {
                await Self.drainAndClose(
                    channel, reader: &reader,
                    within: answer.status < 300 ? Self.drainAfterSuccess : Self.drainAfterError)
            }
        }

        log?(
            ReceiverLogEntry(
                method: request.method.rawValue, path: request.uri.path, status: status,
                bodyBytes: reader.bytesRead, files: files, fields: fields, duration: ContinuousClock.now - started,
                remoteAddress: Self.describe(channel.remoteAddress)))
    }

    /// Answers that do not wait for the body: 413 by Content-Length, `?early=1`. The server-wide knobs
    /// win over the query: a request due for a reset or a 503 gets that instead.
    private func answerBeforeBody(
        _ request: Request, index: Int, knobs: RequestKnobs, resetting: Bool
    ) throws(ReceiverError) -> Answer? {
        guard !resetting else { return nil }
        if let limit = configuration.maxBodySize, let declared = request.headers[.contentLength].flatMap(Int64.init),
            declared > limit
        {
            throw .payloadTooLarge("body of \(declared) bytes is larger than the limit of \(limit) bytes")
        }
        if !configuration.refuses(request: index), let early = knobs.earlyAnswer {
            return early
        }
        return nil
    }

    private func answerAfterBody(
        _ request: Request, index: Int, knobs: RequestKnobs, reader: inout IncomingBodyReader
    ) async throws(ReceiverError) -> Answer {
        if configuration.refuses(request: index) {
            try await reader.drain()
            return configuration.refusal
        }

        let upload: ReceivedUpload
        switch request.method {
        case .post, .put, .patch:
            upload = try await decoder.decode(request, reader: &reader)
        case .get, .head:
            try await reader.drain()
            guard request.uri.path == "/" else {
                return .error(
                    404,
                    "nothing at \(request.uri.path): GET / tells the receiver's status; upload with POST, PUT or PATCH")
            }
            upload = ReceivedUpload(method: request.method.rawValue, path: "/", contentType: nil, bodyBytes: 0)
            if !knobs.replacesAnswer {
                return .json(knobs.status ?? 200, #"{"receiver":"hoist","status":"ok"}"#)
            }
        default:
            try await reader.drain()
            return .error(405, "method \(request.method.rawValue) is not supported: upload with POST, PUT or PATCH")
        }
        return await knobs.answer(for: upload)
    }
}
