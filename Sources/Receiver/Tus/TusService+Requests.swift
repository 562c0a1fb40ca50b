import FoundationEssentials
import Hummingbird
import NIOCore

/// A request that passed its checks and now holds its upload: its body is read next.
struct TusReceipt {
    var upload: TusUpload
    /// Offset the body starts at.
    var start: Int64
    /// Most body bytes that fit; more is a 413 and nothing of the body is kept.
    var room: Int64?
    var checksum: TusChecksum?
    /// A creation-with-upload POST (answered 201 with `Location`) rather than a PATCH.
    var isCreation: Bool
    /// The `resetPatchFirst` knob: reset the connection after this many body bytes, keeping them.
    var resetAfter: Int64?
    /// The `checksumFailFirst` knob: answer 460 whatever the digest.
    var failChecksum: Bool
}

enum TusStep {
    case answer(Answer)
    case receive(TusReceipt)
}

// Deciding what a tus request gets. `decide` checks headers and state without reading the body;
// `receive` streams an accepted body to disk.
extension TusService {
    func decide(
        _ request: Request, route: TusRoute, record: inout TusRequestRecord
    ) async throws(TusFailure) -> TusStep {
        let headers = TusHeaders { name in HTTPFields.Element.Name(name).flatMap { request.headers[$0] } }
        switch (request.method, route) {
        case (.options, _):
            return .answer(options)
        case (.post, .collection):
            try headers.checkVersion()
            return try await create(headers, record: &record)
        case (.head, .upload(let id)):
            try headers.checkVersion()
            return .answer(try head(id, record: &record))
        case (.patch, .upload(let id)):
            try headers.checkVersion()
            return try await patch(id, headers, record: &record)
        case (.delete, .upload(let id)):
            try headers.checkVersion()
            return .answer(try await terminate(id, record: &record))
        case (_, .collection):
            throw TusFailure(
                status: 405, message: "\(request.method.rawValue) \(basePath): POST creates an upload",
                headers: [("Allow", "POST, OPTIONS")])
        case (_, .upload):
            throw TusFailure(
                status: 405, message: "\(request.method.rawValue) on a tus upload: use HEAD, PATCH or DELETE",
                headers: [("Allow", "HEAD, PATCH, DELETE, OPTIONS")])
        }
    }

    private var options: Answer {
        var headers = [
            ("Tus-Version", TusProtocol.version),
            ("Tus-Extension", TusProtocol.extensions(expiring: expiration != nil).joined(separator: ",")),
            ("Tus-Checksum-Algorithm", TusChecksum.Algorithm.advertised),
        ]
        if let maxSize { headers.append(("Tus-Max-Size", String(maxSize))) }
        return .tus(204, headers)
    }

    private func head(_ id: String, record: inout TusRequestRecord) throws(TusFailure) -> Answer {
        guard UploadID.isValid(id), let upload = store.snapshot(id) else { throw .notFound(id) }
        if upload.isExpired(at: Date()) {
            store.removeExpired(at: Date())
            throw .notFound(id)
        }
        record.uploadID = id
        record.offsetAfter = upload.offset
        var headers = [("Upload-Offset", String(upload.offset)), ("Cache-Control", "no-store")]
        headers.append(upload.length.map { ("Upload-Length", String($0)) } ?? ("Upload-Defer-Length", "1"))
        if !upload.metadata.header.isEmpty { headers.append(("Upload-Metadata", upload.metadata.header)) }
        if let expires = upload.expiresHeader { headers.append(("Upload-Expires", expires)) }
        switch upload.concat {
        case .partial: headers.append(("Upload-Concat", "partial"))
        case .final(let parts): headers.append(("Upload-Concat", "final;" + parts.joined(separator: " ")))
        case nil: break
        }
        return .tus(200, headers)
    }

    private func terminate(_ id: String, record: inout TusRequestRecord) async throws(TusFailure) -> Answer {
        guard UploadID.isValid(id) else { throw .notFound(id) }
        record.uploadID = id
        _ = try await acquire(id)
        store.remove(id)
        return .tus(204, [])
    }

    private func patch(
        _ id: String, _ headers: TusHeaders, record: inout TusRequestRecord
    ) async throws(TusFailure) -> TusStep {
        guard UploadID.isValid(id) else { throw .notFound(id) }
        record.uploadID = id
        try headers.checkChunkContentType()
        let offset = try headers.integer("Upload-Offset")
        record.uploadOffset = offset
        let checksum = try headers.checksum()
        let declaredLength = try headers.integer("Upload-Length")
        try checkMaxChunk(headers)

        var upload = try await acquire(id)
        do throws(TusFailure) {
            record.offsetAfter = upload.offset
            if takeTurn(\.conflicts, limit: knobs.conflictFirst) {
                throw .conflict(
                    "the receiver answers 409 to the first \(knobs.conflictFirst) PATCH(es) (conflictFirst)",
                    offset: upload.offset)
            }
            let plan = try upload.plan(
                patchOffset: offset, declaredLength: declaredLength, contentLength: headers.contentLength,
                maxSize: maxSize)
            if plan.setsLength {
                upload.length = plan.length
                try io { () throws(ReceiverError) in try store.save(upload) }
            }
            let resets = takeTurn(\.resets, limit: knobs.resetPatchFirst)
            return .receive(
                TusReceipt(
                    upload: upload, start: upload.offset, room: plan.room, checksum: checksum, isCreation: false,
                    resetAfter: resets ? max(0, knobs.resetPatchAfterBytes) : nil,
                    failChecksum: checksum != nil && takeTurn(\.checksums, limit: knobs.checksumFailFirst)))
        } catch {
            store.release(upload)
            throw error
        }
    }

    private func create(_ headers: TusHeaders, record: inout TusRequestRecord) async throws(TusFailure) -> TusStep {
        let creation = try TusCreation(headers, maxSize: maxSize)
        let hasBody = headers.hasBody
        if case .final(let urls) = creation.kind {
            guard !hasBody else { throw .badRequest("a final upload takes no body: its bytes are its parts'") }
            return .answer(try await concatenate(urls, metadata: creation.metadata, record: &record))
        }
        var checksum: TusChecksum?
        if hasBody {
            try headers.checkChunkContentType()
            checksum = try headers.checksum()
            try checkMaxChunk(headers)
            if let length = creation.length, let contentLength = headers.contentLength, contentLength > length {
                throw .tooLarge("a body of \(contentLength) bytes is longer than Upload-Length \(length)")
            }
        }
        guard store.unfinishedCount < TusStore.maxUnfinished else {
            throw TusFailure(
                status: 503,
                message: "the receiver holds \(TusStore.maxUnfinished) unfinished uploads; finish or delete some")
        }
        store.removeExpired(at: Date())
        var upload = TusUpload(
            id: UploadID.make(), length: creation.length, metadata: creation.metadata,
            concat: creation.kind == .partial ? .partial : nil)
        upload.expires = expiry()
        try io { () throws(ReceiverError) in try store.create(upload) }
        record.uploadID = upload.id
        record.offsetAfter = 0
        if hasBody {
            return .receive(
                TusReceipt(
                    upload: upload, start: 0, room: upload.length ?? maxSize, checksum: checksum, isCreation: true,
                    resetAfter: nil, failChecksum: false))
        }
        var answer = Answer.tus(
            201, [("Location", location(upload.id))] + (upload.expiresHeader.map { [("Upload-Expires", $0)] } ?? []))
        if upload.isComplete && !upload.isPartial {
            do throws(TusFailure) {
                record.savedAs = try io { () throws(ReceiverError) in try complete(&upload) }
                answer.files = 1
            } catch {
                store.remove(upload.id)
                throw error
            }
        }
        store.release(upload)
        return .answer(answer)
    }

    /// `Upload-Concat: final;...`: joins complete partial uploads, in order, into a new complete upload.
    /// The parts are removed once joined.
    private func concatenate(
        _ urls: [String], metadata: TusMetadata, record: inout TusRequestRecord
    ) async throws(TusFailure) -> Answer {
        var ids: [String] = []
        for url in urls {
            guard case .upload(let id)? = route(Self.path(of: url)), UploadID.isValid(id) else {
                throw .badRequest("Upload-Concat: \(url) is not an upload of this receiver")
            }
            guard !ids.contains(id) else { throw .badRequest("Upload-Concat: \(url) is named twice") }
            ids.append(id)
        }
        var parts: [TusUpload] = []
        defer { parts.forEach(store.release) }
        for id in ids {
            do throws(TusFailure) {
                parts.append(try await acquire(id))
            } catch  where error.status == 404 {
                throw .badRequest("Upload-Concat: no partial upload \(id)")
            }
        }
        let length = try TusUpload.concatenatedLength(of: parts, maxSize: maxSize)
        var final = TusUpload(
            id: UploadID.make(), length: length, metadata: metadata, concat: .final(ids.map(location)))
        do throws(ReceiverError) {
            try store.create(final)
            let file = try TusDataFile(path: store.dataPath(final.id))
            for part in parts {
                try file.append(contentsOf: store.dataPath(part.id), at: final.offset)
                final.offset += part.length ?? 0
            }
            record.savedAs = try complete(&final)
        } catch {
            store.remove(final.id)
            throw TusFailure(status: 500, message: error.message)
        }
        record.uploadID = final.id
        record.offsetAfter = final.offset
        store.release(final)
        for part in parts { store.remove(part.id) }
        parts = []
        var answer = Answer.tus(201, [("Location", location(final.id))])
        answer.files = 1
        return answer
    }

    private func checkMaxChunk(_ headers: TusHeaders) throws(TusFailure) {
        if let maxChunk = knobs.maxChunk, let contentLength = headers.contentLength, contentLength > maxChunk {
            throw .tooLarge("a chunk of \(contentLength) bytes is larger than the \(maxChunk) allowed (maxChunk)")
        }
    }

    /// Saves a complete upload into the receiver's directory.
    func complete(_ upload: inout TusUpload) throws(ReceiverError) -> String {
        let savedAs = try store.moveIntoDirectory(upload)
        upload.savedAs = savedAs
        // The file is saved; a JSON that could not be updated only costs a HEAD after a restart.
        try? store.save(upload)
        return savedAs
    }

    /// `http://host:port/files/ID` or `/files/ID` -> `/files/ID`.
    static func path(of url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "/" }
        return String(rest[slash...].prefix { $0 != "?" && $0 != "#" })
    }

    /// Holds the upload for this request; one past its expiry is removed and is a 404 like any unknown one.
    private func acquire(_ id: String) async throws(TusFailure) -> TusUpload {
        switch await store.acquire(id) {
        case .missing:
            throw .notFound(id)
        case .busy:
            throw .locked(id)
        case .upload(let upload):
            guard !upload.isExpired(at: Date()) else {
                store.remove(id)
                throw .notFound(id)
            }
            return upload
        }
    }

    private func io<T>(_ body: () throws(ReceiverError) -> T) throws(TusFailure) -> T {
        do {
            return try body()
        } catch {
            throw TusFailure(status: 500, message: error.message)
        }
    }
}

extension Answer {
    /// A tus answer without a body (`Content-Type` and the JSON are only for errors).
    static func tus(_ status: Int, _ headers: [(String, String)]) -> Answer {
        var answer = Answer(status: status, contentType: "", body: [])
        answer.headers = [("Tus-Resumable", TusProtocol.version)] + headers.map { (name: $0.0, value: $0.1) }
        return answer
    }

    /// `{"error": "..."}` with the headers the client needs to recover.
    static func tus(_ failure: TusFailure) -> Answer {
        var answer = Answer.error(failure.status, failure.message)
        answer.headers = [("Tus-Resumable", TusProtocol.version)] + failure.headers
        return answer
    }
}

extension TusFailure {
    static func locked(_ id: String) -> TusFailure {
        TusFailure(
            status: 423,
            message: "upload \(id) is being written by another request for more than 3 s; try again later")
    }
}
