import Crypto
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

    /// The ETag S3 gives the completed object when every part's ETag is
    /// its MD5: the MD5 of those digests, then `-` and the part count.
    /// `nil` when a part's ETag is not an MD5 (an encrypted object's).
    public var multipartETag: String? {
        var digests: [UInt8] = []
        for part in parts {
            guard let md5 = Hex.bytes(S3Part.unquoted(part.etag)), md5.count == 16 else { return nil }
            digests += md5
        }
        return "\"" + Hex.lowercase(Insecure.MD5.hash(data: digests)) + "-\(parts.count)\""
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
        /// `HeadObject`: whether a completion whose answer was lost went through.
        case headObject

        /// The upload it belongs to; `nil` for `create`.
        var uploadID: String? {
            switch self {
            case .create: return nil
            case .uploadPart(let id, _, _), .listParts(let id, _), .complete(let id, _), .abort(let id): return id
            case .headObject: return nil
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
        /// `HeadObject` found the object: its size and ETag.
        case objectFound(size: Int64, etag: String?)
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
        /// The attempt failed where what the server holds is in doubt (a
        /// completion refused or unanswered): the next attempt, after the
        /// executor's backoff, lists the parts before it goes on.
        case recheck(UploadFailure)
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
    /// Parts confirmed before the listing: a listed part is taken as sent
    /// only when it is one of these (same ETag) or the server vouches for
    /// it with the checksum the upload uses, so every part in the
    /// completion carries the same kind of checksum.
    private var confirmed: [Int: S3Part] = [:]

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
            confirmed = Dictionary(upload?.parts.map { ($0.number, $0) } ?? [], uniquingKeysWith: { $1 })
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
            let part = S3Part(number: number, etag: etag, size: size, checksum: crc)
            upload.parts.append(part)
            upload.parts.sort { $0.number < $1.number }
            confirmed[number] = part
            self.upload = upload
            if isStream, streamLength == nil, upload.parts.count == upload.partCount {
                ended = true
                return fail(
                    .other(
                        "standard input is longer than 10,000 parts of \(partSize) bytes: give a larger --part-size"))
            }
            return completion(upload) ?? proceed(Step(checkpoint: upload, sends: fill()))
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
        case .objectFound(let size, let etag):
            guard let upload, size == upload.length, let etag, let expected = upload.multipartETag,
                S3Part.sameETag(etag, expected)
            else {
                return lost(.headObject)
            }
            ended = true
            return Step(
                note:
                    "the server already holds the whole object: the completion went through before its answer was lost",
                end: .done)
        case .failed(.headObject, _):
            // Not there (or not readable): the upload is gone.
            return lost(.headObject)
        case .failed(let exchange, let fault):
            if case .server(let error) = fault, error.code == "NoSuchUpload", upload != nil {
                // Asked after a completion whose answer was lost (or by a
                // process that died then): the object says whether it went through.
                switch exchange {
                case .listParts, .complete:
                    listed = []
                    return Step(sends: [.headObject])
                default:
                    return lost(exchange)
                }
            }
            let failure: UploadFailure
            switch fault {
            case .server(let error): failure = .httpStatus(error.status, message: error.description)
            case .transport(let transportFailure): failure = transportFailure
            }
            if case .complete = exchange, Self.completionInDoubt(fault) {
                ended = true
                return Step(end: .recheck(failure))
            }
            return fail(failure)
        }
    }

    /// A completion that may have gone through, or was refused over a part
    /// the server is still settling (SeaweedFS answers a cut part's request
    /// after a later one: `InvalidPart`, `InvalidRequest`), is asked about
    /// again; a refusal of the request itself (403, 400 MalformedXML) is final.
    static func completionInDoubt(_ fault: S3Fault) -> Bool {
        switch fault {
        case .transport(let failure):
            if case .httpStatus(let status, _) = failure { return status >= 500 }
            return true
        case .server(let error):
            return error.status >= 500 || ["InvalidPart", "InvalidRequest", "InvalidPartOrder"].contains(error.code)
        }
    }

    private func isStale(_ event: Event) -> Bool {
        let about: String?
        switch event {
        case .partSent(let id, _, _, _), .listed(let id, _, _), .completed(let id): about = id
        case .failed(let exchange, _): about = exchange.uploadID
        case .start, .created, .slotsFreed, .streamEnded, .objectFound: return false
        }
        return about != nil && about != upload?.uploadID
    }

    /// The server's parts are the truth: those of the right size count as
    /// sent (their ETags are the server's), the rest go again. A store may
    /// list a part number once per upload of it (SeaweedFS keeps each):
    /// one of them counts, ours if it is there, and several of unknown
    /// origin count as none, so the completion names each part once.
    private mutating func adoptListed() -> Step {
        guard var upload else { return fail(.other("s3: parts listed with no upload")) }
        let candidates = Dictionary(grouping: listed) { $0.number }
        upload.parts = candidates.compactMap { number, copies -> S3Part? in
            guard (1...upload.partCount).contains(number) else { return nil }
            let fitting = copies.filter { $0.size == Int64(upload.range(ofPart: number).count) }
            if let ours = confirmed[number] {
                // The server's part is the one we sent only if its ETag is ours.
                guard let part = fitting.first(where: { S3Part.sameETag(ours.etag, $0.etag) }) else { return nil }
                return S3Part(
                    number: number, etag: part.etag, size: part.size, checksum: ours.checksum ?? part.checksum)
            }
            // A part whose answer never came: the CRC32 the completion must
            // carry is known only if the server says it (SeaweedFS does not).
            let known = fitting.filter { upload.checksumAlgorithm != .crc32 || $0.checksum != nil }
            guard let part = known.first, known.allSatisfy({ S3Part.sameETag($0.etag, part.etag) }) else { return nil }
            return part
        }
        .sorted { $0.number < $1.number }
        confirmed = Dictionary(upload.parts.map { ($0.number, $0) }, uniquingKeysWith: { $1 })
        listed = []
        self.upload = upload
        if upload.offset > 0 { resumedFrom = upload.offset }
        if let done = completion(upload) { return done }
        sendingParts = true
        return proceed(Step(checkpoint: upload, sends: fill()))
    }

    /// `step`, unless it would leave the upload waiting for nothing: no
    /// part on the wire, none to send, and no completion. That is a fault
    /// in this machine, and failing says so where waiting would hang.
    private mutating func proceed(_ step: Step) -> Step {
        guard sendingParts, step.sends.isEmpty, inFlight.isEmpty else { return step }
        return fail(.other("s3: no part left to send, yet the parts do not make the whole file"))
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
        confirmed = [:]
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
