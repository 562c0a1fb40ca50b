/// A path of the Cloud Storage JSON API that the receiver serves.
enum GCSRoute: Equatable {
    /// `/upload/storage/v1/b/BUCKET/o`: POST starts a resumable upload; PUT and DELETE with `upload_id` are
    /// its session.
    case uploads(bucket: String)
    /// `/storage/v1/b/BUCKET/o/NAME` (or `/download/...`): GET is the object's metadata, or with `alt=media`
    /// its bytes.
    case object(bucket: String, name: String)
    /// Under the API's prefixes, but nothing the receiver serves: a 404 in Google's format.
    case unknown

    static let uploadPrefix = "/upload/storage/v1/b/"
    private static let objectPrefixes = ["/storage/v1/b/", "/download/storage/v1/b/"]

    /// nil for a path outside the API (the receiver's other endpoints answer it). Segments are
    /// percent-decoded, so an object name may hold `/` written as `%2F`.
    init?(path: String) {
        if path.hasPrefix(Self.uploadPrefix) {
            let rest = path.dropFirst(Self.uploadPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            guard rest.count == 2, rest[1] == "o" else {
                self = .unknown
                return
            }
            self = .uploads(bucket: PercentDecoding.decodeString(rest[0], plusAsSpace: false))
            return
        }
        guard let prefix = Self.objectPrefixes.first(where: { path.hasPrefix($0) }) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/"), rest[slash...].hasPrefix("/o/") else {
            self = .unknown
            return
        }
        let name = rest[rest.index(slash, offsetBy: 3)...]
        guard !name.isEmpty else {
            self = .unknown
            return
        }
        self = .object(
            bucket: PercentDecoding.decodeString(rest[..<slash], plusAsSpace: false),
            name: PercentDecoding.decodeString(name, plusAsSpace: false))
    }
}

/// Cloud Storage's naming rules (https://cloud.google.com/storage/docs/buckets#naming,
/// https://cloud.google.com/storage/docs/objects#naming), checked before a name touches anything.
enum GCSNames {
    /// 3 to 63 characters (222 with dots) of `a-z 0-9 - _ .`, starting and ending with a letter or digit:
    /// such a name is also a safe folder name (no `/`, never `.` or `..`).
    static func checkBucket(_ name: String) throws(GCSFailure) {
        let bytes = Array(name.utf8)
        let isAlphanumeric = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        let valid =
            (3...(bytes.contains(UInt8(ascii: ".")) ? 222 : 63)).contains(bytes.count)
            && bytes.allSatisfy {
                isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
            }
            && isAlphanumeric(bytes.first!) && isAlphanumeric(bytes.last!) && !name.contains("..")
        guard valid else {
            throw .invalid(
                "Invalid bucket name: '\(name)'. Use 3-63 characters of a-z, 0-9, -, _ and ., starting and ending"
                    + " with a letter or digit")
        }
    }

    /// 1 to 1024 bytes of UTF-8, no CR or LF, not `.` or `..`. Anything else, `../x` included, is a
    /// valid object name; how it is saved on disk is ``GCSStore``'s concern.
    static func checkObject(_ name: String) throws(GCSFailure) {
        guard !name.isEmpty else { throw .invalid("Required: the object name (name= or the metadata's \"name\")") }
        guard name.utf8.count <= 1024 else { throw .invalid("The object name is longer than 1024 bytes") }
        guard !name.utf8.contains(13), !name.utf8.contains(10), name != ".", name != ".." else {
            throw .invalid("Invalid object name: it holds a carriage return or line feed, or is . or ..")
        }
    }
}
