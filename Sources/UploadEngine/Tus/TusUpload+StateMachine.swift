import FormData
import FoundationEssentials
import WireRules

/// A tus 1.0 upload with no I/O: answers in, the next exchange out. The
/// engine runs one attempt of the task as a series of exchanges (`OPTIONS`
/// once, `POST` to create, `HEAD` to learn the offset, `PATCH` per chunk)
/// and keeps this machine across attempts, so a retry, or another process
/// given the checkpoint, goes on from the server's offset, never from 0
/// unless the server lost the upload.
struct TusUploadStateMachine: Sendable {
    /// Chunks never shrink below this after 413s.
    static let smallestChunk: Int64 = 16 << 10
    /// 409s or 460s in a row before the attempt gives up.
    static let patience = 3

    let endpoint: String
    let path: String
    let metadata: String
    let settings: TusSettings
    /// The bytes of the file this upload carries when it is one partial
    /// upload of several (concatenation); `nil` for the whole file.
    let part: Range<Int64>?
    /// Standard input: `Upload-Defer-Length`, and the engine tells the
    /// length when the stream ends (`streamEnded`).
    let isStream: Bool
    private(set) var server: TusServerCapabilities?
    private(set) var upload: TusCheckpoint?
    /// Whether `upload.offset` is what the server holds now; false after a
    /// fault, so the next exchange is a `HEAD`.
    private(set) var offsetKnown = false
    /// The size of the chunk `next()` sends.
    private(set) var chunkSize: Int64
    /// The size of the chunk after that one, which the engine hashes while
    /// that one is on the wire: an answer's rate sizes the chunk after the
    /// next, so what was hashed is what is sent.
    private(set) var followingChunkSize: Int64
    /// The largest chunk the server took, after a 413.
    private var ceiling: Int64 = .max
    /// The offset the current attempt went on from, when it did not start at 0.
    private(set) var resumedFrom: Int64?
    private var file: FileSnapshot?
    /// The exchange sent and not answered yet.
    private(set) var pending: TusExchange?
    private var conflicts = 0
    private var mismatches = 0
    private var restarted = false
    private var headsThisAttempt = 0

    init(
        endpoint: String, path: String, metadata: [HeaderField], settings: TusSettings, checkpoint: TusCheckpoint?,
        part: Range<Int64>? = nil, server: TusServerCapabilities? = nil, isStream: Bool = false
    ) {
        self.isStream = isStream
        self.endpoint = endpoint
        self.path = path
        self.metadata = TusMetadata.encode(metadata.map { ($0.name, $0.value) })
        self.settings = settings
        self.part = part
        self.server = server
        self.upload = checkpoint
        self.file = checkpoint?.file
        self.chunkSize = max(Self.smallestChunk, settings.chunkSize.initial)
        self.followingChunkSize = chunkSize
    }

    /// The bytes the server is known to hold.
    var offset: Int64 { upload?.offset ?? 0 }

    /// Where this upload's bytes start in the file.
    var base: Int64 { part?.lowerBound ?? 0 }

    /// `Upload-Length`: the part's, or the file's.
    var uploadLength: Int64 {
        if isStream { return upload?.length ?? TusCheckpoint.deferredLength }
        return part.map { $0.upperBound - $0.lowerBound } ?? file?.size ?? 0
    }

    var isDone: Bool { offsetKnown && upload?.isComplete ?? false }

    /// Standard input ended at `length` bytes: the `PATCH` that carries its
    /// last bytes also says `Upload-Length`.
    mutating func streamEnded(at length: Int64) {
        upload?.length = length
    }

    mutating func handle(_ event: Event) -> Step {
        switch event {
        case .start(let current):
            pending = nil
            conflicts = 0
            mismatches = 0
            restarted = false
            headsThisAttempt = 0
            resumedFrom = nil
            offsetKnown = false
            if let upload,
                let changed = UploadFailure.fileChanged(
                    since: upload.file, now: current, field: "", path: path,
                    so: "since its tus upload was created, so it is not appended to \(upload.uploadURL)")
            {
                return fail(changed)
            }
            if upload == nil { file = current }
            return next()
        case .answered(let status, let headers, let seconds):
            guard let exchange = pending else { return fail(.other("tus: an answer came with no request")) }
            pending = nil
            return answered(exchange, status: status, headers: headers, seconds: seconds)
        case .failed(let failure):
            if let exchange = pending, exchange.kind == .patch || exchange.kind == .create { offsetKnown = false }
            pending = nil
            return fail(failure)
        }
    }

    /// The `DELETE` that ends the upload on the server, when it offers termination.
    func termination() -> TusExchange? {
        guard let upload, server?.offers("termination") ?? false else { return nil }
        return TusExchange(kind: .terminate, url: upload.uploadURL, headers: Self.resumable, chunk: nil, checksum: nil)
    }

    // MARK: - What to send next

    private static let resumable = [HeaderField("Tus-Resumable", "1.0.0")]
    private static let offsetStream = HeaderField("Content-Type", "application/offset+octet-stream")

    private mutating func next() -> Step {
        guard let server else {
            return send(TusExchange(kind: .discover, url: endpoint, headers: Self.resumable, chunk: nil, checksum: nil))
        }
        guard let upload else { return create(server) }
        guard offsetKnown else {
            return send(
                TusExchange(kind: .head, url: upload.uploadURL, headers: Self.resumable, chunk: nil, checksum: nil))
        }
        if upload.isComplete { return Step(next: .done) }
        let chunk = base + upload.offset..<base + min(upload.offset + chunkSize, upload.knownLength ?? .max)
        return send(
            TusExchange(
                kind: .patch, url: upload.uploadURL,
                headers: Self.resumable + [HeaderField("Upload-Offset", String(upload.offset)), Self.offsetStream],
                chunk: chunk, checksum: checksumAlgorithm))
    }

    /// The algorithm of each `PATCH`'s `Upload-Checksum`, once the server
    /// said it offers checksums.
    var checksumAlgorithm: TusChecksumAlgorithm? {
        guard settings.checksum, let server, server.offers("checksum") else { return nil }
        return TusChecksumAlgorithm.choose(offered: server.checksumAlgorithms)
    }

    private mutating func create(_ server: TusServerCapabilities) -> Step {
        guard server.offers("creation") else {
            return fail(
                .protocolError(
                    "the tus server at \(endpoint) does not offer the creation extension (Tus-Extension: \(server.extensions.sorted().joined(separator: ",")))"
                ))
        }
        let length = uploadLength
        var headers = Self.resumable
        if isStream {
            guard server.offers("creation-defer-length") else {
                return fail(
                    .protocolError(
                        "standard input has no length yet, and the tus server does not offer creation-defer-length"))
            }
            headers.append(HeaderField("Upload-Defer-Length", "1"))
        } else {
            headers.append(HeaderField("Upload-Length", String(length)))
        }
        if part != nil {
            headers.append(HeaderField("Upload-Concat", "partial"))  // the final upload carries the metadata
        } else if !metadata.isEmpty {
            headers.append(HeaderField("Upload-Metadata", metadata))
        }
        var chunk: Range<Int64>?
        if server.offers("creation-with-upload"), length > 0, !isStream {
            headers.append(Self.offsetStream)
            chunk = base..<base + min(chunkSize, length)
        }
        return send(TusExchange(kind: .create, url: endpoint, headers: headers, chunk: chunk, checksum: nil))
    }

    private mutating func send(_ exchange: TusExchange) -> Step {
        pending = exchange
        return Step(next: .send(exchange))
    }

    private func fail(_ failure: UploadFailure) -> Step {
        Step(next: .fail(failure))
    }

    // MARK: - Answers

    private mutating func answered(
        _ exchange: TusExchange, status: Int, headers: [HeaderField], seconds: Double?
    ) -> Step {
        let ok = (200..<300).contains(status)
        if status == 412 {
            let versions = headers.value(of: "Tus-Version") ?? "another version"
            return fail(.httpStatus(412, message: "the server speaks tus \(versions); hoist speaks 1.0.0"))
        }
        switch exchange.kind {
        case .discover:
            // A server that does not answer OPTIONS (or not as tus) still gets the core protocol.
            let tus = ok && headers.value(of: "Tus-Version") != nil
            let capabilities = tus ? TusServerCapabilities(headers: headers) : .assumed
            if !capabilities.versions.isEmpty, !capabilities.versions.contains("1.0.0") {
                return fail(
                    .protocolError(
                        "the server speaks tus \(capabilities.versions.joined(separator: ", ")); hoist speaks 1.0.0"))
            }
            let length = upload?.length ?? uploadLength
            if let max = capabilities.maxSize, length > max {
                return fail(.protocolError(Self.tooLarge(length, max: max)))
            }
            server = capabilities
            return next()
        case .create:
            return created(exchange, status: status, headers: headers, seconds: seconds)
        case .head:
            guard ok else { return lost(status) ?? unexpected(status) }
            guard var upload, let offset = headers.value(of: "Upload-Offset").flatMap({ Int64($0.trimmingSpaces) }),
                offset >= 0
            else { return fail(.protocolError("the server's HEAD answer has no Upload-Offset")) }
            if let length = headers.value(of: "Upload-Length").flatMap({ Int64($0.trimmingSpaces) }),
                let known = upload.knownLength, length != known
            {
                return fail(
                    .protocolError(
                        "the upload on the server is \(length) bytes long and the file \(upload.length); not appended"))
            }
            guard offset <= upload.knownLength ?? .max else {
                return fail(.protocolError("the server says it holds \(offset) bytes of \(upload.length)"))
            }
            headsThisAttempt += 1
            if headsThisAttempt == 1, offset > 0, !restarted { resumedFrom = offset }
            upload.offset = offset
            self.upload = upload
            offsetKnown = true
            return Step(checkpoint: upload, next: next().next)
        case .patch:
            return patched(exchange, status: status, headers: headers, seconds: seconds)
        case .terminate:
            return Step(next: .done)
        }
    }

    private mutating func created(
        _ exchange: TusExchange, status: Int, headers: [HeaderField], seconds: Double?
    ) -> Step {
        guard (200..<300).contains(status) else {
            if status == 413 {
                let length = uploadLength
                // The first chunk rode along (creation-with-upload): the body may
                // be what is too large, not the upload. Try a smaller one.
                if let chunk = exchange.chunk, chunk.count > Self.smallestChunk,
                    server?.maxSize.map({ length <= $0 }) ?? true
                {
                    shrink(below: Int64(chunk.count))
                    return Step(note: shrunk(from: Int64(chunk.count)), next: next().next)
                }
                return fail(
                    .httpStatus(
                        413,
                        message: server?.maxSize.map { Self.tooLarge(length, max: $0) } ?? "the file is \(length) bytes"
                    ))
            }
            return unexpected(status)
        }
        guard let location = headers.value(of: "Location"), let url = Self.resolve(location, against: endpoint) else {
            return fail(.protocolError(Self.noUpload(status: status, location: headers.value(of: "Location"))))
        }
        var offset: Int64 = 0
        offsetKnown = true
        if let chunk = exchange.chunk {
            sent(chunk, in: seconds)
            // creation-with-upload: the answer says how much of the first chunk it kept.
            if let kept = headers.value(of: "Upload-Offset").flatMap({ Int64($0.trimmingSpaces) }) {
                offset = kept
            } else {
                offsetKnown = false
            }
        }
        let upload = TusCheckpoint(uploadURL: url, offset: offset, length: uploadLength, file: file)
        self.upload = upload
        return Step(checkpoint: upload, next: next().next)
    }

    private mutating func patched(
        _ exchange: TusExchange, status: Int, headers: [HeaderField], seconds: Double?
    ) -> Step {
        let chunk = exchange.chunk ?? 0..<0
        switch status {
        case 200..<300:
            guard var upload else { return fail(.other("tus: a PATCH answer with no upload")) }
            let offset =
                headers.value(of: "Upload-Offset").flatMap { Int64($0.trimmingSpaces) } ?? chunk.upperBound - base
            guard offset >= upload.offset, offset <= upload.knownLength ?? .max else {
                return fail(
                    .protocolError("the server answered the PATCH at \(upload.offset) with Upload-Offset \(offset)"))
            }
            upload.offset = offset
            self.upload = upload
            conflicts = 0
            mismatches = 0
            sent(chunk, in: seconds)
            return Step(checkpoint: upload, next: next().next)
        case 409:
            conflicts += 1
            guard conflicts <= Self.patience else {
                return fail(.httpStatus(409, message: "the server's offset kept disagreeing with hoist's"))
            }
            offsetKnown = false
            return Step(note: "the server's offset differed (HTTP 409); asked it again", next: next().next)
        case 460:
            mismatches += 1
            guard mismatches <= Self.patience else {
                return fail(
                    .httpStatus(
                        460,
                        message:
                            "the checksum of bytes \(chunk.lowerBound)–\(chunk.upperBound) did not match \(Self.patience + 1) times in a row"
                    ))
            }
            return Step(
                note:
                    "the server found a checksum mismatch (HTTP 460); sent bytes \(chunk.lowerBound)–\(chunk.upperBound) again",
                next: send(exchange).next)
        case 413:
            let size = Int64(chunk.count)
            guard size > Self.smallestChunk else {
                return fail(.httpStatus(413, message: "even a \(size)-byte chunk is too large for the server"))
            }
            shrink(below: size)
            offsetKnown = false
            return Step(note: shrunk(from: size), next: next().next)
        case 415:
            return fail(.httpStatus(415, message: "the server refused Content-Type application/offset+octet-stream"))
        default:
            return lost(status) ?? unexpected(status)
        }
    }

    /// A chunk went through: the next one is the size planned for it, and
    /// with automatic chunks this one's rate plans the one after.
    private mutating func sent(_ chunk: Range<Int64>, in seconds: Double?) {
        chunkSize = followingChunkSize
        // Standard input is held in memory a chunk at a time: it keeps the first size.
        guard settings.chunkSize == .automatic, !isStream, let seconds, !chunk.isEmpty else { return }
        // At most twice the chunk about to go: that one's transfer is the
        // time the engine has to hash this one (SHA-1 runs at about 2.5× the
        // transfer here), so the ramp from 8 to 64 MiB never waits for a hash.
        followingChunkSize = min(
            TusChunkSize.automatic(afterSending: Int64(chunk.count), in: seconds, ceiling: ceiling), 2 * chunkSize)
    }

    /// A 413 for a chunk of `size` bytes: half that, from now on.
    private mutating func shrink(below size: Int64) {
        ceiling = max(Self.smallestChunk, size / 2)
        chunkSize = ceiling
        followingChunkSize = ceiling
    }

    /// 404, 410 or 403 for an upload that existed: the server no longer has
    /// it, so it starts again from 0, once per attempt.
    private mutating func lost(_ status: Int) -> Step? {
        guard [403, 404, 410].contains(status) else { return nil }
        guard !restarted else {
            return fail(.httpStatus(status, message: "the server lost the tus upload again"))
        }
        restarted = true
        upload = nil
        offsetKnown = false
        resumedFrom = nil
        let note =
            "the server no longer has the upload (HTTP \(status) \(HTTPStatusText.reason(status))); starting again from byte 0"
        return Step(note: note, next: next().next)
    }

    private mutating func unexpected(_ status: Int) -> Step {
        offsetKnown = false
        return fail(.httpStatus(status, message: nil))
    }

}
