import FormData

/// Where an S3 multipart upload stands, durably: its UploadId, the part
/// size and the parts the server confirmed. With it another process goes
/// on where this one stopped (`ListParts`, then only the missing parts).
public struct S3Checkpoint: Sendable, Hashable, Codable {
    public var uploadID: String
    public var partSize: Int64
    public var length: Int64
    /// Confirmed parts, by number.
    public var parts: [S3Part]
    /// The file as it was when the upload was created.
    public var file: FileSnapshot?
    /// The checksum the upload was created with; `nil` in journals written
    /// before there was a choice: those uploads were made with `Content-MD5`.
    public var checksum: S3Checksum?

    public var checksumAlgorithm: S3Checksum { checksum ?? .md5 }

    public init(
        uploadID: String, partSize: Int64, length: Int64, parts: [S3Part] = [], file: FileSnapshot?,
        checksum: S3Checksum? = nil
    ) {
        self.checksum = checksum
        self.uploadID = uploadID
        self.partSize = partSize
        self.length = length
        self.parts = parts
        self.file = file
    }

    /// Bytes the server holds.
    public var offset: Int64 { parts.reduce(0) { $0 + $1.size } }

    /// How many parts the file makes (an empty file is one empty part).
    public var partCount: Int { max(1, Int((length + partSize - 1) / partSize)) }

    /// The bytes of part `number` (from 1).
    public func range(ofPart number: Int) -> Range<Int64> {
        let start = Int64(number - 1) * partSize
        return start..<min(start + partSize, length)
    }
}

/// One file sent as an S3 multipart upload, with no I/O:
/// `CreateMultipartUpload`, up to `concurrency` `UploadPart`s at once (fewer
/// when the engine's `allowance` says so), then
/// `CompleteMultipartUpload`. After a fault or in another process it asks
/// `ListParts` (page after page) and sends only what the server lacks. The
/// engine turns answers into events (XML decoded, ETags read) and carries
/// out the exchanges it asks for.
struct S3MultipartStateMachine: Sendable {
    enum Exchange: Sendable, Hashable {
        case create
        case uploadPart(uploadID: String, number: Int, range: Range<Int64>)
        /// From the part after `marker` (`nil`: the first page).
        case listParts(uploadID: String, marker: Int?)
        case complete(uploadID: String, [S3Part])
        case abort(uploadID: String)

        /// The upload it belongs to; `nil` for `create`.
        var uploadID: String? {
            switch self {
            case .create: return nil
            case .uploadPart(let id, _, _), .listParts(let id, _), .complete(let id, _), .abort(let id): return id
            }
        }
    }

    enum Event: Sendable {
        /// An attempt begins; `file` is the file as stat sees it now.
        case start(file: FileSnapshot?)
        case created(uploadID: String)
        /// `checksum`: the part's CRC32 (base64), when the upload uses them.
        case partSent(uploadID: String, number: Int, etag: String, checksum: String? = nil)
        case listed(uploadID: String, [S3Part], nextMarker: Int?)
        case completed(uploadID: String)
        /// The engine's request slots widened `allowance`: more parts may go.
        case slotsFreed
        /// Standard input ended: the upload is `length` bytes.
        case streamEnded(length: Int64)
        /// The exchange failed: an S3 error answer, or no answer at all.
        case failed(Exchange, S3Fault)
    }

    enum S3Fault: Sendable, Hashable {
        case server(S3ServerError)
        case transport(UploadFailure)
    }

    enum End: Sendable, Hashable {
        case done
        case fail(UploadFailure)
    }

    struct Step: Sendable, Hashable {
        var checkpoint: S3Checkpoint?
        var note: String?
        var sends: [Exchange] = []
        var end: End?
    }

    let path: String
    let partSize: Int64
    let concurrency: Int
    /// For an upload this machine creates (a resumed one keeps its own).
    let checksum: S3Checksum
    /// Standard input: parts go one at a time, and the length is known
    /// only once the stream ends (until then the most parts S3 takes).
    let isStream: Bool
    /// Parts this upload may have on the wire now, set by the engine before
    /// each event: the engine's concurrency limit counts every request, so
    /// parts share it with the other tasks (at least one is always allowed).
    var allowance = Int.max
    private(set) var upload: S3Checkpoint?
    /// The bytes the server had when this attempt went on from a checkpoint.
    private(set) var resumedFrom: Int64?
    private var file: FileSnapshot?
    private var inFlight: Set<Int> = []
    /// Parts may go: the upload exists and is not being listed or completed.
    private var sendingParts = false
    /// Standard input ended, so `upload.length` is its length.
    private var streamLength: Int64?
    /// Parts `ListParts` has returned so far in this attempt.
    private var listed: [S3Part] = []
    private var restarted = false
    private var ended = false

    init(
        path: String, partSize: Int64, concurrency: Int, checkpoint: S3Checkpoint?, checksum: S3Checksum = .crc32,
        isStream: Bool = false
    ) {
        self.checksum = checksum
        self.isStream = isStream
        self.path = path
        self.partSize = checkpoint?.partSize ?? partSize
        self.concurrency = isStream ? 1 : max(1, concurrency)
        self.upload = checkpoint
        self.file = checkpoint?.file
    }

    var offset: Int64 { upload?.offset ?? 0 }

    var partsInFlight: Int { inFlight.count }

    /// The `AbortMultipartUpload` that frees the parts on the server (a
    /// cancel or a removal: nothing is left billing).
    func abortion() -> Exchange? {
        upload.map { .abort(uploadID: $0.uploadID) }
    }

    mutating func handle(_ event: Event) -> Step {
        switch event {
        case .start(let current):
            inFlight = []
            listed = []
            sendingParts = false
            restarted = false
            ended = false
            resumedFrom = nil
            if let upload,
                let changed = UploadFailure.fileChanged(
                    since: upload.file, now: current, field: "", path: path,
                    so: "since its multipart upload was created, so it is not completed")
            {
                return fail(changed)
            }
            if upload == nil { file = current }
            return upload.map { Step(sends: [.listParts(uploadID: $0.uploadID, marker: nil)]) }
                ?? Step(sends: [.create])
        case _ where ended:
            return Step()
        case _ where isStale(event):
            // An answer about an upload the server lost and this one replaced.
            return Step()
        case .created(let uploadID):
            let length = isStream ? partSize * S3PartSize.maximumParts : file?.size ?? 0
            let created = S3Checkpoint(
                uploadID: uploadID, partSize: partSize, length: length, file: file, checksum: checksum)
            upload = created
            sendingParts = true
            return Step(checkpoint: created, sends: fill())
        case .listed(let uploadID, let page, let marker):
            listed += page
            if let marker { return Step(sends: [.listParts(uploadID: uploadID, marker: marker)]) }
            return adoptListed()
        case .partSent(_, let number, let etag, let crc):
            guard var upload else { return fail(.other("s3: a part answered with no upload")) }
            inFlight.remove(number)
            let size = Int64(upload.range(ofPart: number).count)
            upload.parts.removeAll { $0.number == number }
            upload.parts.append(S3Part(number: number, etag: etag, size: size, checksum: crc))
            upload.parts.sort { $0.number < $1.number }
            self.upload = upload
            if isStream, streamLength == nil, upload.parts.count == upload.partCount {
                ended = true
                return fail(
                    .other(
                        "standard input is longer than 10,000 parts of \(partSize) bytes: give a larger --part-size"))
            }
            return completion(upload) ?? Step(checkpoint: upload, sends: fill())
        case .slotsFreed:
            return Step(sends: fill())
        case .streamEnded(let length):
            guard var upload else { return Step() }
            streamLength = length
            upload.length = length
            self.upload = upload
            inFlight = inFlight.filter { $0 <= upload.partCount }
            return completion(upload) ?? Step(checkpoint: upload)
        case .completed:
            ended = true
            return Step(end: .done)
        case .failed(let exchange, let fault):
            if case .server(let error) = fault, error.code == "NoSuchUpload", upload != nil {
                return lost(exchange)
            }
            ended = true
            switch fault {
            case .server(let error): return fail(.httpStatus(error.status, message: error.description))
            case .transport(let failure): return fail(failure)
            }
        }
    }

    private func isStale(_ event: Event) -> Bool {
        let about: String?
        switch event {
        case .partSent(let id, _, _, _), .listed(let id, _, _), .completed(let id): about = id
        case .failed(let exchange, _): about = exchange.uploadID
        case .start, .created, .slotsFreed, .streamEnded: return false
        }
        return about != nil && about != upload?.uploadID
    }

    /// The server's parts are the truth: those of the right size count as
    /// sent (their ETags are the server's), the rest go again.
    private mutating func adoptListed() -> Step {
        guard var upload else { return fail(.other("s3: parts listed with no upload")) }
        upload.parts = listed.filter { part in
            (1...upload.partCount).contains(part.number) && part.size == Int64(upload.range(ofPart: part.number).count)
        }
        .sorted { $0.number < $1.number }
        listed = []
        self.upload = upload
        if upload.offset > 0 { resumedFrom = upload.offset }
        if let done = completion(upload) { return done }
        sendingParts = true
        return Step(checkpoint: upload, sends: fill())
    }

    /// `CompleteMultipartUpload`, once every part is confirmed and none is on the wire.
    private mutating func completion(_ upload: S3Checkpoint) -> Step? {
        guard upload.parts.count == upload.partCount, inFlight.isEmpty else { return nil }
        sendingParts = false
        return Step(checkpoint: upload, sends: [.complete(uploadID: upload.uploadID, upload.parts)])
    }

    /// Up to `concurrency` parts on the wire (and the `allowance`): the
    /// lowest missing numbers first.
    private mutating func fill() -> [Exchange] {
        guard sendingParts, let upload else { return [] }
        let done = Set(upload.parts.map(\.number))
        let limit = min(concurrency, max(1, allowance))
        var sends: [Exchange] = []
        for number in 1...upload.partCount where inFlight.count < limit {
            guard !done.contains(number), !inFlight.contains(number) else { continue }
            inFlight.insert(number)
            sends.append(.uploadPart(uploadID: upload.uploadID, number: number, range: upload.range(ofPart: number)))
        }
        return sends
    }

    /// `NoSuchUpload`: the server forgot the upload (aborted, or expired by
    /// a lifecycle rule). Once per attempt it starts again from part 1.
    private mutating func lost(_ exchange: Exchange) -> Step {
        guard !restarted else {
            ended = true
            return fail(.httpStatus(404, message: "the server lost the multipart upload again (NoSuchUpload)"))
        }
        restarted = true
        upload = nil
        sendingParts = false
        inFlight = []
        listed = []
        resumedFrom = nil
        return Step(
            note: "the server no longer has the multipart upload (NoSuchUpload); starting again from part 1",
            sends: [.create])
    }

    private mutating func fail(_ failure: UploadFailure) -> Step {
        ended = true
        return Step(end: .fail(failure))
    }
}
