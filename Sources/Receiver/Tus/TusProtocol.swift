/// The fixed parts of tus 1.0 as this receiver speaks it: <https://tus.io/protocols/resumable-upload>.
enum TusProtocol {
    static let version = "1.0.0"
    /// Only what the receiver implements; clients choose their behaviour by this list.
    static func extensions(expiring: Bool) -> [String] {
        ["creation", "creation-with-upload", "creation-defer-length", "termination", "checksum", "concatenation"]
            + (expiring ? ["expiration"] : [])
    }
    /// The body type of a PATCH and of a creation-with-upload POST.
    static let chunkContentType = "application/offset+octet-stream"
    /// Status for a checksum mismatch (the checksum extension's own code).
    static let checksumMismatch = 460
}

/// A path under the tus endpoint: the creation URL itself, or one upload.
enum TusRoute: Equatable {
    case collection
    case upload(String)

    /// `/files` and `/files/` are the collection, `/files/ID` an upload; anything else is not tus.
    /// `basePath` has no trailing slash (`/files`).
    init?(path: String, basePath: String) {
        guard path.hasPrefix(basePath) else { return nil }
        let rest = path.dropFirst(basePath.count)
        if rest.isEmpty || rest == "/" {
            self = .collection
        } else if rest.first == "/" {
            self = .upload(String(rest.dropFirst()))
        } else {
            return nil
        }
    }

    /// `/files/`, `files`, `` become `/files`; nil when nothing usable is left (`/` alone would take over
    /// every path).
    static func normalizedBasePath(_ configured: String) -> String? {
        let trimmed = configured.split(separator: "/").joined(separator: "/")
        return trimmed.isEmpty ? nil : "/" + trimmed
    }
}
