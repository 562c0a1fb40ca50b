import FoundationEssentials
import Hummingbird

/// An initiation whose JSON metadata body is read next.
struct GCSInitiation {
    var bucket: String
    /// `name=` from the query; the body's `"name"` is used when it is missing.
    var name: String?
    /// `X-Upload-Content-Type`.
    var contentType: String?
    /// `X-Upload-Content-Length`.
    var size: Int64?
}

/// A session PUT that passed its checks and holds its session: its body is read next.
struct GCSReceipt {
    var session: GCSSession
    /// Body bytes the receiver holds already (a chunk sent again), dropped before writing.
    var skip: Int64
    /// The body's length by `Content-Range`; nil for a chunked whole-object PUT.
    var length: Int64?
    var total: Int64?
    var isFinal: Bool
    var hashes: GCSHashes
    /// The whole object in one request (`uploadType=media`).
    var isMedia = false
}

enum GCSStep {
    case answer(Answer)
    case initiate(GCSInitiation)
    case receive(GCSReceipt)
}

// Deciding what a request gets from its method, path, query and headers, before its body is read.
extension GCSService {
    /// The metadata body of an initiation is held in memory: at most this many bytes.
    static let maxMetadataBytes = 1 << 20

    func decide(_ request: Request, route: GCSRoute, baseURL: String) async throws(GCSFailure) -> GCSStep {
        let query = Self.query(request.uri.query)
        let header = { (name: String) in HTTPFields.Element.Name(name).flatMap { request.headers[$0] } }
        switch (request.method, route) {
        case (_, .unknown):
            throw .notFound("Not Found: \(request.uri.path) is no Cloud Storage JSON API path this receiver serves")
        case (.post, .uploads(let bucket)):
            try GCSNames.checkBucket(bucket)
            if query["uploadType"] == "media" {
                return try media(request, bucket: bucket, query: query, header: header)
            }
            guard query["uploadType"] == "resumable" else {
                throw .invalid(
                    "uploadType=\(query["uploadType"] ?? "") is not supported here: use uploadType=resumable or media")
            }
            var size: Int64?
            if let text = header("X-Upload-Content-Length") {
                guard let value = Int64(text), value >= 0 else {
                    throw .invalid("X-Upload-Content-Length \"\(text)\" is not a number of bytes")
                }
                size = value
            }
            return .initiate(
                GCSInitiation(
                    bucket: bucket, name: query["name"], contentType: header("X-Upload-Content-Type"), size: size))
        case (.put, .uploads(let bucket)):
            return try await put(
                bucket: bucket, id: query["upload_id"], range: header("Content-Range"),
                hashes: request.headers[values: HTTPFields.Element.Name("x-goog-hash")!],
                contentLength: header("Content-Length").flatMap { Int64($0) }, baseURL: baseURL)
        case (.delete, .uploads(let bucket)):
            return .answer(try await cancel(bucket: bucket, id: query["upload_id"]))
        case (.get, .object(let bucket, let name)), (.head, .object(let bucket, let name)):
            return .answer(try read(bucket: bucket, name: name, media: query["alt"] == "media", baseURL: baseURL))
        case (_, .uploads):
            throw GCSFailure(
                status: 405,
                message: "\(request.method.rawValue) is not allowed here: POST starts an upload,"
                    + " PUT and DELETE with upload_id go to its session", reason: "methodNotAllowed")
        case (_, .object):
            throw GCSFailure(
                status: 405, message: "\(request.method.rawValue) is not allowed on an object: GET reads it",
                reason: "methodNotAllowed")
        }
    }

    /// Opens the session once the metadata body is read.
    func initiate(_ initiation: GCSInitiation, body: [UInt8], baseURL: String) throws(GCSFailure) -> Answer {
        struct Metadata: Decodable {
            var name: String?
            var contentType: String?
        }
        var metadata = Metadata()
        if !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            guard let decoded = try? JSONDecoder().decode(Metadata.self, from: Data(body)) else {
                throw .invalid("Parse Error: the body must be the object's metadata as a JSON object, or empty")
            }
            metadata = decoded
        }
        guard let name = initiation.name ?? metadata.name else {
            throw .invalid("Required: the object name, as name= in the URL or \"name\" in the JSON body")
        }
        try GCSNames.checkObject(name)
        if let maxSize, let size = initiation.size, size > maxSize {
            throw GCSFailure(
                status: 413, message: "An object of \(size) bytes is larger than the receiver's limit of \(maxSize)",
                reason: "uploadTooLarge")
        }
        guard store.unfinishedCount < GCSStore.maxUnfinished else {
            throw GCSFailure(
                status: 503,
                message: "The receiver holds \(GCSStore.maxUnfinished) unfinished uploads;"
                    + " finish or cancel some", reason: "backendError")
        }
        let session = GCSSession(
            id: UploadID.make(), bucket: initiation.bucket, name: name,
            contentType: metadata.contentType ?? initiation.contentType ?? "application/octet-stream",
            size: initiation.size)
        do throws(ReceiverError) {
            try store.create(session)
        } catch {
            throw GCSFailure(status: 500, message: error.message, reason: "backendError")
        }
        store.release(session)
        return .gcsEmpty(
            200, [("Location", sessionURL(session, baseURL: baseURL)), ("X-GUploader-UploadID", session.id)])
    }

    private func put(
        bucket: String, id: String?, range: String?, hashes: [String], contentLength: Int64?, baseURL: String
    ) async throws(GCSFailure) -> GCSStep {
        var session = try await acquire(bucket: bucket, id: id)
        do throws(GCSFailure) {
            let range = try range.map { header throws(GCSFailure) in try GCSContentRange(parsing: header) }
            let hashes = try GCSHashes(parsing: hashes)
            switch try session.plan(range: range, contentLength: contentLength, maxSize: maxSize) {
            case .status:
                store.release(session)
                return .answer(state(of: session, baseURL: baseURL))
            case .finish(let total):
                session.size = total
                return .answer(finish(&session, hashes: hashes, baseURL: baseURL))
            case .write(let skip, let length, let total, let isFinal):
                if session.size == nil { session.size = total }
                return .receive(
                    GCSReceipt(
                        session: session, skip: skip, length: length, total: total, isFinal: isFinal, hashes: hashes))
            }
        } catch {
            store.release(session)
            throw error
        }
    }

    /// Google answers a cancelled session 499 (Client Closed Request); it is gone from then on.
    private func cancel(bucket: String, id: String?) async throws(GCSFailure) -> Answer {
        let session = try await acquire(bucket: bucket, id: id)
        store.remove(session.id)
        var answer = Answer.gcsEmpty(499)
        answer.reason = "Client Closed Request"
        return answer
    }

    private func read(bucket: String, name: String, media: Bool, baseURL: String) throws(GCSFailure) -> Answer {
        try GCSNames.checkBucket(bucket)
        try GCSNames.checkObject(name)
        guard let object = store.object(bucket: bucket, name: name) else {
            throw .notFound("No such object: \(bucket)/\(name)")
        }
        guard media else { return object.resource(baseURL: baseURL) }
        let fd: Int32
        do throws(ReceiverError) {
            fd = try store.openForReading(object)
        } catch {
            throw GCSFailure(status: 500, message: error.message, reason: "backendError")
        }
        var answer = Answer(status: 200, contentType: object.contentType, body: [])
        answer.file = StreamedFile(fd: fd, length: object.size)
        answer.headers = [
            ("x-goog-hash", "crc32c=\(object.crc32c),md5=\(object.md5Hash)"),
            ("x-goog-generation", String(object.generation)), ("x-goog-stored-content-length", String(object.size)),
        ]
        return answer
    }

    /// Holds the session for this request: 404 when unknown (or in another bucket), 503 when another request
    /// keeps it busy.
    private func acquire(bucket: String, id: String?) async throws(GCSFailure) -> GCSSession {
        guard let id else { throw .invalid("Required: upload_id, the session's ID from the Location URL") }
        guard UploadID.isValid(id) else { throw .noSession(id) }
        switch await store.acquire(id) {
        case .missing:
            throw .noSession(id)
        case .busy:
            throw GCSFailure(
                status: 503, message: "Session \(id) is being written by another request; query it again shortly",
                reason: "backendError")
        case .session(let session):
            guard session.bucket == bucket else {
                store.release(session)
                throw .noSession(id)
            }
            return session
        }
    }

    /// The query's parameters, percent-decoded with `+` as a space; the first of a repeated name wins.
    static func query(_ text: String?) -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in PercentDecoding.pairs(text ?? "", plusAsSpace: true) where parameters[name] == nil {
            parameters[name] = value
        }
        return parameters
    }
}
