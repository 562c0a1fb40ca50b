import FormData
import WireRules

/// One GCS object's upload, with no I/O: which exchange comes next, and
/// what each answer means. A small file is one `uploadType=media` request;
/// a larger one a resumable session, its chunks sent in order, each `308`
/// saying how many bytes the server holds. After a fault, or in another
/// process, the next attempt asks first (an empty `PUT` with
/// `Content-Range: bytes */LENGTH`) and goes on from there.
struct GCSUploadStateMachine: Sendable {
    enum Kind: String, Sendable, Hashable {
        /// The whole small file in one request.
        case media
        /// `POST` begins a session: its URI comes back in `Location`.
        case begin
        /// An empty `PUT`: how many bytes the session holds.
        case status
        /// `PUT` of the bytes from the server's offset.
        case chunk
    }

    struct Exchange: Sendable, Hashable {
        var kind: Kind
        var method: String
        var url: String
        var headers: [HeaderField]
        /// The file's bytes it carries.
        var chunk: Range<Int64>?
        /// It carries the file's last byte: the whole file's hash goes with it.
        var isLast = false
    }

    enum End: Sendable, Hashable {
        case done
        /// `recheck`: what the server holds is in doubt, the next attempt asks first.
        case fail(UploadFailure, recheck: Bool)
    }

    struct Step: Sendable, Hashable {
        var exchange: Exchange?
        /// The session's new durable state.
        var checkpoint: GCSCheckpoint?
        var note: String?
        var end: End?
        /// The server no longer holds the session: the bar goes back to 0.
        var sessionLost = false
        /// A session of a file that changed since, to be cancelled.
        var abandoned: String?
    }

    enum Event: Sendable {
        case start(file: FileSnapshot)
        case answered(status: Int, headers: [HeaderField], body: [UInt8])
        case failed(UploadFailure)
    }

    let settings: GCSSettings
    private(set) var session: GCSCheckpoint?
    /// Where this attempt went on from, when not from 0.
    private(set) var resumedFrom: Int64?
    private var file: FileSnapshot?
    private let chunkSize: Int64
    private var pending: Exchange?

    init(settings: GCSSettings, checkpoint: TransferCheckpoint?) {
        self.settings = settings
        self.session = checkpoint?.gcs
        self.chunkSize = settings.chunk
    }

    /// The small file went whole in one request.
    private var sentWhole = false

    /// Bytes the server holds.
    var offset: Int64 { session?.offset ?? (sentWhole ? file?.size ?? 0 : 0) }

    mutating func handle(_ event: Event) -> Step {
        switch event {
        case .start(let current):
            file = current
            resumedFrom = nil
            var step = Step()
            if let held = session, held.file != current || held.length != current.size {
                step.abandoned = held.sessionURL
                step.note = "the file changed since its upload began: it is sent again from the start"
                step.sessionLost = true
                session = nil
            }
            if session != nil {
                step.exchange = ask()
            } else {
                step.exchange = current.size <= settings.singleRequestLimit ? media(current.size) : begin(current.size)
            }
            return sending(step)
        case .answered(let status, let headers, let body):
            guard let exchange = pending else { return Step() }
            pending = nil
            return answered(exchange, status: status, headers: headers, body: body)
        case .failed(let failure):
            guard let exchange = pending else { return Step() }
            pending = nil
            // A media request starts over anyway; a session is asked what it holds.
            return Step(end: .fail(failure, recheck: exchange.kind != .media))
        }
    }

    private mutating func sending(_ step: Step) -> Step {
        pending = step.exchange
        return step
    }

    private mutating func answered(
        _ exchange: Exchange, status: Int, headers: [HeaderField], body: [UInt8]
    ) -> Step {
        if status == 200 || status == 201 {
            if exchange.kind == .begin {
                guard let location = headers.value(of: "Location"), let url = Self.resolve(location, exchange.url)
                else {
                    return Step(
                        end: .fail(
                            .protocolError(
                                "the server began no upload session: HTTP \(status) with no Location (is \(Secrets.displayURL(exchange.url)) a GCS JSON API endpoint?)"
                            ), recheck: false))
                }
                let length = file?.size ?? 0
                session = GCSCheckpoint(sessionURL: url, offset: 0, length: length, file: file)
                return sending(Step(exchange: chunk(from: 0), checkpoint: session))
            }
            if let session { self.session?.offset = session.length }
            sentWhole = exchange.kind == .media
            return Step(checkpoint: exchange.kind == .media ? nil : session, end: .done)
        }
        if status == 308, exchange.kind == .status || exchange.kind == .chunk, var held = session {
            let before = held.offset
            guard let range = Self.heldBytes(headers.value(of: "Range")), range <= held.length else {
                return Step(
                    end: .fail(
                        .protocolError(
                            "the server's Range \(headers.value(of: "Range") ?? "") is no byte count of the \(held.length)-byte upload"
                        ), recheck: true))
            }
            held.offset = range
            session = held
            if exchange.kind == .status {
                if range > 0 { resumedFrom = range }
            } else if range <= before {
                // Nothing of the chunk was kept: the next attempt asks again (and counts against the retries).
                return Step(
                    checkpoint: held,
                    end: .fail(
                        .protocolError("the server kept none of a \(exchange.chunk?.count ?? 0)-byte chunk"),
                        recheck: true))
            }
            guard range < held.length else {
                // All bytes held but not finalized: only the answer is missing.
                return sending(Step(exchange: ask(), checkpoint: held))
            }
            return sending(Step(exchange: chunk(from: range), checkpoint: held))
        }
        if status == 404 || status == 410, exchange.kind == .status || exchange.kind == .chunk {
            // Sessions last a week; a lost one starts over.
            session = nil
            let length = file?.size ?? 0
            return sending(
                Step(
                    exchange: begin(length),
                    note: "the upload session had expired (HTTP \(status)): a new one was begun from byte 0",
                    sessionLost: true))
        }
        let retryable = status == 408 || status == 429 || status >= 500
        return Step(
            end: .fail(.httpStatus(status, message: Self.message(body)), recheck: retryable && exchange.kind != .media))
    }

    // MARK: - Exchanges

    private func media(_ length: Int64) -> Exchange {
        Exchange(kind: .media, method: "POST", url: settings.mediaURL, headers: [], chunk: 0..<length, isLast: true)
    }

    private func begin(_ length: Int64) -> Exchange {
        Exchange(
            kind: .begin, method: "POST", url: settings.sessionURL,
            headers: [
                HeaderField("X-Upload-Content-Type", settings.contentType),
                HeaderField("X-Upload-Content-Length", String(length)),
            ])
    }

    private func ask() -> Exchange {
        let length = session?.length ?? 0
        return Exchange(
            kind: .status, method: "PUT", url: session?.sessionURL ?? "",
            headers: [HeaderField("Content-Range", "bytes */\(length)")])
    }

    private func chunk(from start: Int64) -> Exchange {
        let length = session?.length ?? 0
        let end = min(length, start + chunkSize)
        return Exchange(
            kind: .chunk, method: "PUT", url: session?.sessionURL ?? "",
            headers: [HeaderField("Content-Range", "bytes \(start)-\(end - 1)/\(length)")], chunk: start..<end,
            isLast: end == length)
    }

    // MARK: - Reading answers

    /// `bytes=0-N` held `N + 1` bytes; no Range, none.
    static func heldBytes(_ range: String?) -> Int64? {
        guard let range else { return 0 }
        let text = range.trimmingSpaces
        guard text.hasPrefix("bytes=0-"), let last = Int64(text.dropFirst("bytes=0-".count)), last >= 0 else {
            return nil
        }
        return last + 1
    }

    /// GCS's `{"error":{"message":…}}`, else the answer's start.
    static func message(_ body: [UInt8]) -> String? {
        if let value = try? JSONParser.parse(body), case .string(let text)? = value[path: "error.message"] {
            return text
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingSpaces
        return text.isEmpty ? nil : text
    }

    /// A `Location` may be relative to the URL that began the session.
    static func resolve(_ location: String, _ base: String) -> String? {
        TusUploadStateMachine.resolve(location, against: base)
    }
}
