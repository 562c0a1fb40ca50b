import Hummingbird

// A whole object in one request (`uploadType=media`), as Google's clients send small files: a session
// of one final chunk, which goes away unless it became the object.
extension GCSService {
    func media(
        _ request: Request, bucket: String, query: [String: String], header: (String) -> String?
    ) throws(GCSFailure) -> GCSStep {
        guard let name = query["name"] else {
            throw .invalid("Required: the object name, as name= in the URL of an uploadType=media request")
        }
        try GCSNames.checkObject(name)
        var length: Int64?
        if let text = header("Content-Length") {
            guard let value = Int64(text), value >= 0 else {
                throw .invalid("Content-Length \"\(text)\" is not a number of bytes")
            }
            length = value
        }
        if let maxSize, let length, length > maxSize {
            throw GCSFailure(
                status: 413, message: "An object of \(length) bytes is larger than the receiver's limit of \(maxSize)",
                reason: "uploadTooLarge")
        }
        let hashes = try GCSHashes(parsing: request.headers[values: HTTPFields.Element.Name("x-goog-hash")!])
        let session = GCSSession(
            id: UploadID.make(), bucket: bucket, name: name,
            contentType: header("Content-Type") ?? "application/octet-stream",
            size: length)
        do throws(ReceiverError) {
            try store.create(session)
        } catch {
            throw GCSFailure(status: 500, message: error.message, reason: "backendError")
        }
        return .receive(
            GCSReceipt(
                session: session, skip: 0, length: length, total: length, isFinal: true, hashes: hashes, isMedia: true))
    }

    /// A media upload that did not become an object leaves no session behind.
    func endMedia(_ receipt: GCSReceipt) {
        guard receipt.isMedia, store.snapshot(receipt.session.id)?.object == nil else { return }
        store.remove(receipt.session.id)
    }
}
