import FoundationEssentials
import WireRules

/// The Cloud Storage endpoint: resumable uploads through the JSON API, exactly as Google documents them
/// (https://cloud.google.com/storage/docs/performing-resumable-uploads), and objects read back.
///
/// - `POST /upload/storage/v1/b/BUCKET/o?uploadType=resumable&name=NAME` (or the name in the JSON body)
///   opens a session: 200 with its absolute URL in `Location` (the same URL plus `&upload_id=ID`).
/// - `PUT SESSION` with `Content-Range: bytes FIRST-LAST/TOTAL` (or `/*`) adds a chunk: 308 with
///   `Range: bytes=0-N` while unfinished, 200 and the object resource at the end. `bytes */TOTAL` or
///   `bytes */*` with no body asks for the state and changes nothing (unless TOTAL is exactly what is held,
///   which ends the upload, as Google does for a stream that ended on a chunk boundary).
/// - `DELETE SESSION` cancels it: 499, then 404 for it.
/// - `GET /storage/v1/b/BUCKET/o/NAME` is the object's resource; with `?alt=media` its bytes.
///
/// Any bucket name that follows Google's rules exists. The requests are handled in
/// `GCSService+Requests.swift`, a chunk's body in `GCSService+Receive.swift`; the files in ``GCSStore``.
final class GCSService: Sendable {
    let store: GCSStore
    /// The receiver's `maxBodySize` bounds whole objects, not only single chunks.
    let maxSize: Int64?
    /// `http` or `https`, for the session URLs handed out.
    let scheme: String

    init?(configuration: ReceiverConfiguration) {
        guard configuration.servesGCS else { return nil }
        self.store = GCSStore(directory: UploadDirectory(path: configuration.directory))
        self.maxSize = configuration.maxBodySize
        self.scheme = configuration.tls == nil ? "http" : "https"
    }

    func route(_ path: String) -> GCSRoute? {
        GCSRoute(path: path)
    }

    /// The session's URL, as Google's `Location` gives it: the initiation URL plus `upload_id`.
    func sessionURL(_ session: GCSSession, baseURL: String) -> String {
        baseURL + GCSRoute.uploadPrefix + session.bucket + "/o?uploadType=resumable&name="
            + URIComponent.escaped(session.name) + "&upload_id=" + session.id
    }

    /// Where an unfinished session stands: 308 (Google's `Resume Incomplete`) with the bytes held as `Range` (none
    /// when nothing is held); a finished one answers its object.
    func state(of session: GCSSession, baseURL: String) -> Answer {
        if let object = session.object { return object.resource(baseURL: baseURL) }
        // NIO writes 308's phrase as Permanent Redirect; clients read the code alone. No Location: a
        // client that follows redirects (Python's requests) must not follow this one.
        return .gcsEmpty(308, session.persisted > 0 ? [("Range", "bytes=0-\(session.persisted - 1)")] : [])
    }

    /// Ends the upload with the bytes held: checks `x-goog-hash` against the whole object, then saves it.
    /// A mismatch removes the session with its bytes, as the object is not what the client meant.
    func finish(_ session: inout GCSSession, hashes: GCSHashes, baseURL: String) -> Answer {
        let digests = session.digests.base64
        for (key, expected, actual) in [("crc32c", hashes.crc32c, digests.crc32c), ("md5", hashes.md5, digests.md5)] {
            guard let expected, Base64.decode(expected) != Base64.decode(actual) else { continue }
            store.remove(session.id)
            return GCSFailure.invalid(
                "Provided \(key) \"\(expected)\" doesn't match calculated \(key) \"\(actual)\"; the object was not"
                    + " stored and the session is gone"
            ).answer
        }
        let now = Date()
        var object = GCSObject(
            bucket: session.bucket, name: session.name, contentType: session.contentType, size: session.persisted,
            md5Hash: digests.md5, crc32c: digests.crc32c,
            generation: Int64((now.timeIntervalSince1970 * 1_000_000).rounded(.down)), created: now, savedAs: "")
        do throws(ReceiverError) {
            object.savedAs = try store.publish(session, as: object)
        } catch {
            store.release(session)
            return GCSFailure(status: 500, message: error.message, reason: "backendError").answer
        }
        session.object = object
        store.release(session)
        var answer = object.resource(baseURL: baseURL)
        answer.files = 1
        return answer
    }
}
