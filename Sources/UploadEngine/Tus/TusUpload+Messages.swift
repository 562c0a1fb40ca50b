import FoundationEssentials

/// What a tus upload tells the user, and where its `Location` points.
extension TusUploadStateMachine {
    func shrunk(from size: Int64) -> String {
        "the server refused a \(size)-byte chunk as too large (HTTP 413); chunks are now \(chunkSize) bytes"
    }

    /// A creation answered without an upload URL: most often a URL that is
    /// not a tus endpoint at all (a form handler answers 200 to any POST).
    static func noUpload(status: Int, location: String?) -> String {
        let answer = "HTTP \(status) \(HTTPStatusText.reason(status))"
        if let location {
            return
                "the server created the upload but its Location \(String(reflecting: location)) is not an http(s) URL"
        }
        guard status == 201 else {
            return "the server answered \(answer) with no Location, not 201 Created with the upload's URL:"
                + " the URL does not look like a tus creation endpoint"
        }
        return "the server created the upload (\(answer)) but its answer has no Location"
    }

    static func tooLarge(_ length: Int64, max: Int64) -> String {
        "the file is \(length) bytes and the server takes at most \(max) (Tus-Max-Size)"
    }

    /// A `Location` may be relative to the creation URL.
    static func resolve(_ location: String, against base: String) -> String? {
        guard let url = URL(string: location.trimmingSpaces, relativeTo: URL(string: base)),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return url.absoluteString
    }
}
