import FormData

/// What makes two requests the same upload, for dedupe: the request with
/// its per-send randomness (the multipart boundary) and its display label
/// left out. An upload whose key matches one that is queued or running is
/// not added again.
struct DedupeKey: Sendable, Hashable {
    private let request: UploadRequest

    init(_ request: UploadRequest) {
        var copy = request
        if case .multipart(var form) = copy.body {
            form.boundary = Self.boundary
            copy.body = .multipart(form)
        }
        copy.label = nil
        self.request = copy
    }

    /// The one boundary every key's form carries.
    private static let boundary = try! Boundary("dedupe")
}

extension UploadRequest {
    /// Two requests with the same key are the same upload (see dedupe).
    var dedupeKey: DedupeKey { DedupeKey(self) }
}
