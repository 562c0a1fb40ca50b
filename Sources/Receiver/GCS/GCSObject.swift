import FoundationEssentials
import WireRules

/// A finished object: what its resource JSON says, and the file its bytes were saved as.
struct GCSObject: Equatable {
    var bucket: String
    var name: String
    var contentType: String
    var size: Int64
    /// Base64 of the MD5 and of the big-endian CRC-32C, as Google writes them.
    var md5Hash: String
    var crc32c: String
    /// Microseconds since 1970, like Google's generations: a new upload of a name is a new generation.
    var generation: Int64
    var created: Date
    /// The file's name inside `DIR/BUCKET/`.
    var savedAs: String

    /// The object resource (https://cloud.google.com/storage/docs/json_api/v1/objects#resource). Numbers
    /// that may pass 2^53 (size, generation) are strings in Google's JSON.
    func resource(baseURL: String) -> Answer {
        struct Resource: Encodable {
            var kind = "storage#object"
            var id: String
            var selfLink: String
            var mediaLink: String
            var name: String
            var bucket: String
            var generation: String
            var metageneration = "1"
            var contentType: String
            var storageClass = "STANDARD"
            var size: String
            var md5Hash: String
            var crc32c: String
            var etag: String
            var timeCreated: String
            var updated: String
        }
        let path = "/storage/v1/b/\(bucket)/o/\(URIComponent.escaped(name))"
        let time = Self.timestamp(created)
        let resource = Resource(
            id: "\(bucket)/\(name)/\(generation)", selfLink: baseURL + path,
            mediaLink: baseURL + "/download" + path + "?generation=\(generation)&alt=media", name: name,
            bucket: bucket, generation: String(generation), contentType: contentType, size: String(size),
            md5Hash: md5Hash, crc32c: crc32c, etag: crc32c, timeCreated: time, updated: time)
        return .gcsJSON(200, resource)
    }

    /// RFC 3339 in UTC with milliseconds: `2026-05-01T12:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
