import Foundation
import Hummingbird
import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Answers one request: applies the knobs, streams the body into fields and files, writes the answer.
struct RequestHandler: Sendable {
    static let maxInMemoryBody = 8 << 20
    /// How long to keep reading (and discarding) a body after answering early with a 2xx, so a client
    /// that finishes its upload before reading the answer still succeeds.
    static let drainAfterSuccess: Duration = .seconds(30)
    /// The same after an error answer: enough for the client to read the answer before the close.
    static let drainAfterError: Duration = .seconds(2)

    let configuration: ReceiverConfiguration
    let directory: UploadDirectory
    let requests: NIOLockedValueBox<Int>
    let log: (@Sendable (ReceiverLogEntry) -> Void)?

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
        let resetAfter: Int64? = index < configuration.resetFirst ? max(0, configuration.resetAfterBodyBytes) : nil
        var reader = IncomingBodyReader(
            body: request.body, limit: configuration.maxBodySize, resetAfter: resetAfter,
            bytesPerSecond: configuration.readBytesPerSecond)

        var outcome: Outcome
        do throws(ReceiverError) {
            if resetAfter == 0 { throw .resetConnection }
            let knobs = try RequestKnobs(query: request.uri.query)
            if let early = try answerBeforeBody(request, index: index, knobs: knobs, resetting: resetAfter != nil) {
                outcome = .answer(early)
            } else {
                if let stall = knobs.stall { try? await Task.sleep(for: stall) }
                if request.headers[.expect]?.lowercased() == "100-continue" {
                    try? await writer.writeInformationalHead(HTTPResponse(status: .continue))
                }
                outcome = .answer(try await answerAfterBody(request, index: index, knobs: knobs, reader: &reader))
            }
        } catch {
            switch error {
            case .resetConnection: outcome = .reset
            case .clientGone: outcome = .gone
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
        if knobs.early, index >= configuration.failFirst {
            return .json(200, #"{"early":true}"#)
        }
        return nil
    }

    private func answerAfterBody(
        _ request: Request, index: Int, knobs: RequestKnobs, reader: inout IncomingBodyReader
    ) async throws(ReceiverError) -> Answer {
        if index < configuration.failFirst {
            try await reader.drain()
            var answer = Answer.error(
                503,
                "the receiver refuses the first \(configuration.failFirst) request(s) (failFirst); retry after \(configuration.retryAfterSeconds) s"
            )
            answer.retryAfter = configuration.retryAfterSeconds
            return answer
        }

        let upload: ReceivedUpload
        switch request.method {
        case .post, .put, .patch:
            upload = try await receive(request, reader: &reader)
        case .get, .head:
            try await reader.drain()
            guard request.uri.path == "/" else {
                return .error(
                    404,
                    "nothing at \(request.uri.path): GET / tells the receiver's status; upload with POST, PUT or PATCH")
            }
            upload = ReceivedUpload(method: request.method.rawValue, path: "/", contentType: nil, bodyBytes: 0)
            if knobs.reply == nil, knobs.json == nil {
                return .json(knobs.status ?? 200, #"{"receiver":"hoist","status":"ok"}"#)
            }
        default:
            try await reader.drain()
            return .error(405, "method \(request.method.rawValue) is not supported: upload with POST, PUT or PATCH")
        }

        if let delay = knobs.delay { try? await Task.sleep(for: delay) }
        let status = knobs.status ?? 200
        var answer: Answer
        if let reply = knobs.reply {
            switch reply {
            case .invalidJSON: answer = .json(status, #"{"broken": "#)
            case .text:
                answer = Answer(
                    status: status, contentType: "text/plain; charset=utf-8",
                    body: Array("hello from hoist receiver".utf8))
            }
        } else if let json = knobs.json {
            answer = .json(status, json)
        } else {
            return .upload(upload, status: status)
        }
        answer.files = upload.files.count
        answer.fields = upload.fields.count
        return answer
    }

    /// Reads the body according to its Content-Type.
    private func receive(_ request: Request, reader: inout IncomingBodyReader) async throws(ReceiverError) -> ReceivedUpload {
        let contentType = request.headers[.contentType]
        var upload = ReceivedUpload(
            method: request.method.rawValue, path: request.uri.path, contentType: contentType, bodyBytes: 0)
        let mediaType = contentType.map(MediaType.init(parsing:))

        if let mediaType, mediaType.isMultipartFormData {
            guard let boundary = mediaType.parameters["boundary"], !boundary.isEmpty else {
                throw .badRequest(
                    "multipart/form-data without a boundary parameter: send Content-Type: multipart/form-data; boundary=..."
                )
            }
            let handler = MultipartStreamHandler(boundary: boundary, directory: directory)
            do throws(ReceiverError) {
                while let chunk = try await reader.next() { try handler.feed(chunk) }
                try handler.finish()
            } catch {
                handler.abort()
                throw error
            }
            upload.fields = handler.fields
            upload.files = handler.files
        } else if let mediaType, mediaType.isURLEncodedForm {
            let body = try await collect(&reader, what: "an application/x-www-form-urlencoded body")
            let text = String(decoding: body.readableBytesView, as: UTF8.self)
            upload.fields = PercentDecoding.pairs(text, plusAsSpace: true).map { .init(name: $0.name, value: $0.value) }
        } else if let mediaType, mediaType.isJSON {
            try await receiveJSON(into: &upload, reader: &reader)
        } else {
            upload.files = [try await receiveRaw(reader: &reader, contentType: contentType, path: request.uri.path)]
        }
        upload.bodyBytes = reader.bytesRead
        return upload
    }

    /// Collects a small body in memory; larger than 8 MiB is a 413.
    private func collect(_ reader: inout IncomingBodyReader, what: String) async throws(ReceiverError) -> ByteBuffer {
        var body = ByteBuffer()
        while let chunk = try await reader.next() {
            guard body.readableBytes + chunk.readableBytes <= Self.maxInMemoryBody else {
                throw .payloadTooLarge("\(what) is larger than \(Self.maxInMemoryBody >> 20) MiB")
            }
            body.writeImmutableBuffer(chunk)
        }
        return body
    }

    /// Echoes JSON up to 8 MiB; a larger JSON body is saved as a raw file instead.
    private func receiveJSON(into upload: inout ReceivedUpload, reader: inout IncomingBodyReader) async throws(ReceiverError) {
        var body = ByteBuffer()
        while !reader.finished, body.readableBytes <= Self.maxInMemoryBody {
            guard let chunk = try await reader.next() else { break }
            body.writeImmutableBuffer(chunk)
        }
        if body.readableBytes > Self.maxInMemoryBody {
            upload.files = [
                try await receiveRaw(
                    reader: &reader, contentType: upload.contentType, path: upload.path, prefix: body)
            ]
            return
        }
        let data = Data(body.readableBytesView)
        do {
            upload.json = try JSONDecoder().decode(ReceivedJSON.self, from: data)
        } catch {
            throw .badRequest("invalid JSON: \(Self.describeInvalidJSON(data))")
        }
    }

    /// Saves the whole body as one file named after the last URL path component.
    private func receiveRaw(
        reader: inout IncomingBodyReader, contentType: String?, path: String, prefix: ByteBuffer? = nil
    ) async throws(ReceiverError) -> ReceivedUpload.File {
        let last = path.split(separator: "/").last.map { PercentDecoding.decodeString($0, plusAsSpace: false) }
        let filename = last ?? "body"
        let sink = try directory.createFile(for: filename)
        do throws(ReceiverError) {
            if let prefix { try sink.write(prefix) }
            while let chunk = try await reader.next() { try sink.write(chunk) }
            let sha256 = try sink.finish()
            return .init(
                name: "", filename: filename, contentType: contentType, size: sink.size, sha256: sha256,
                savedAs: sink.savedAs)
        } catch {
            sink.abort()
            throw error
        }
    }

    private func write(
        _ answer: Answer, for request: Request, closing: Bool, to writer: consuming ResponseWriter
    ) async throws {
        var headers = HTTPFields()
        headers[.contentType] = answer.contentType
        headers[.contentLength] = String(answer.body.count)
        if let retryAfter = answer.retryAfter { headers[.retryAfter] = String(retryAfter) }
        if closing { headers[.connection] = "close" }
        let head = HTTPResponse(status: .init(code: answer.status), headerFields: headers)
        if request.method == .head {
            try await writer.writeResponse(head)
        } else {
            try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
    }

    /// Closes with a TCP reset: SO_LINGER 0 makes close() send RST instead of FIN.
    static func reset(_ channel: any Channel) async {
        if let socket = channel as? any SocketOptionProvider {
            try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }

    /// Reads and discards what is left of the body for at most `within`, then closes the connection.
    ///
    /// Closing right away with unread bytes in the socket would send a reset, and the client could lose
    /// the answer it has not read yet (the "lingering close" nginx and Apache do).
    static func drainAndClose(_ channel: any Channel, reader: inout IncomingBodyReader, within: Duration) async {
        let components = within.components
        let timeout = channel.eventLoop.scheduleTask(
            in: .seconds(components.seconds) + .nanoseconds(components.attoseconds / 1_000_000_000)
        ) {
            channel.close(promise: nil)
        }
        await reader.discardRest()
        timeout.cancel()
        try? await channel.close()
    }

    static func describe(_ address: SocketAddress?) -> String? {
        guard let address, let ip = address.ipAddress else { return nil }
        let host = ip.contains(":") ? "[\(ip)]" : ip
        return address.port.map { "\(host):\($0)" } ?? host
    }

    /// JSONDecoder only says "not valid JSON"; JSONSerialization says where.
    private static func describeInvalidJSON(_ data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String { return detail }
        }
        return "The given data was not valid JSON."
    }
}
