import FormData

/// What makes two requests the same upload, for dedupe: the request with
/// its per-send randomness (the multipart boundary) and its display label
/// left out. An upload that matches one queued or running is not added
/// again. The scheduler keeps only the hash of each unfinished task's key
/// and compares the requests themselves when a hash matches: a copy of
/// every request as its key was a third of a queued task's memory.
enum DedupeKey {
    static func hash(_ request: UploadRequest) -> Int { normalized(request).hashValue }

    static func same(_ a: UploadRequest, _ b: UploadRequest) -> Bool { normalized(a) == normalized(b) }

    private static func normalized(_ request: UploadRequest) -> UploadRequest {
        var copy = request
        if case .multipart(var form) = copy.body {
            form.boundary = boundary
            copy.body = .multipart(form)
        }
        copy.label = nil
        return copy
    }

    /// The one boundary every key's form carries.
    private static let boundary = try! Boundary("dedupe")
}
