import FormData

/// Why an S3 target cannot be used: named for the user, never holding a secret.
public struct S3ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An object's place: `s3://BUCKET/KEY`. A key that is empty or ends in
/// `/` is a prefix: each file goes under it by its own name.
public struct S3Location: Sendable, Hashable, Codable {
    public var bucket: String
    public var key: String

    public init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Whether `url` is `s3://…`, in any case.
    public static func isS3URL(_ url: String) -> Bool {
        url.lowercased().hasPrefix("s3://")
    }

    /// `s3://bucket/photos/a.jpg`, `s3://bucket/photos/` or `s3://bucket`.
    public static func parse(_ url: String) throws(S3ConfigurationError) -> S3Location {
        guard isS3URL(url) else {
            throw S3ConfigurationError("\(url) is not an S3 URL: write s3://BUCKET/KEY")
        }
        let rest = url.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" }
        guard isBucketName(String(bucket)) else {
            throw S3ConfigurationError(
                "\"\(bucket)\" is not a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens")
        }
        return S3Location(bucket: String(bucket), key: String(rest.dropFirst(bucket.count + 1)))
    }

    public var isPrefix: Bool { key.isEmpty || key.hasSuffix("/") }

    /// The object a file goes to: the key itself, or the prefix and the file's name.
    public func object(for file: String) -> S3Location {
        isPrefix ? S3Location(bucket: bucket, key: key + baseName(of: file)) : self
    }

    public var url: String { "s3://\(bucket)/\(key)" }

    /// S3's rules for new buckets; MinIO and R2 keep them too.
    static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count), let first = bytes.first, let last = bytes.last else { return false }
        func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        return isLowerAlphanumeric(first) && isLowerAlphanumeric(last)
            && bytes.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
            && !name.contains("..")
    }
}

/// The server an S3 target talks to, and how a bucket is addressed there.
public struct S3Endpoint: Sendable, Hashable, Codable {
    /// `nil` for AWS; else `http(s)://host[:port]` of MinIO, R2, Ceph...
    public var url: String?
    public var region: String
    /// `/bucket/key` on the endpoint's host rather than `bucket.host/key`.
    public var pathStyle: Bool

    public static let defaultRegion = "us-east-1"

    /// A custom endpoint is addressed path-style (MinIO and moto need it; R2
    /// takes both); AWS virtual-hosted, as AWS asks of new code.
    public init(url: String? = nil, region: String = S3Endpoint.defaultRegion, pathStyle: Bool? = nil) {
        self.url = url
        self.region = region
        self.pathStyle = pathStyle ?? (url != nil)
    }

    /// The request line of an operation on `location`'s object (or its
    /// bucket, with an empty key).
    public func line(_ method: String, _ location: S3Location, query: [(String, String?)] = [])
        throws(S3ConfigurationError) -> S3RequestLine
    {
        var scheme = "https"
        var host: String
        if let url {
            guard let separator = url.firstRange(of: "://") else {
                throw S3ConfigurationError("the endpoint \(url) is not a URL: write http://host:port or https://host")
            }
            scheme = url[..<separator.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw S3ConfigurationError("the endpoint \(url) must be http:// or https://")
            }
            host = String(url[separator.upperBound...].prefix { $0 != "/" }).lowercased()
            guard !host.isEmpty else { throw S3ConfigurationError("the endpoint \(url) has no host") }
            for (suffix, defaultPort) in [(":80", "http"), (":443", "https")]
            where host.hasSuffix(suffix) && scheme == defaultPort {
                host.removeLast(suffix.count)
            }
        } else {
            host = region == Self.defaultRegion ? "s3.amazonaws.com" : "s3.\(region).amazonaws.com"
        }
        // A dotted bucket name would not match the TLS certificate of `*.host`.
        let virtual = !pathStyle && !(scheme == "https" && location.bucket.contains("."))
        let path =
            virtual ? "/" + location.key : "/" + location.bucket + (location.key.isEmpty ? "" : "/" + location.key)
        return S3RequestLine(
            method: method, scheme: scheme, host: virtual ? location.bucket + "." + host : host, path: path,
            query: query)
    }
}

/// The size of each part of a multipart upload.
public enum S3PartSize {
    /// S3's smallest part but the last.
    public static let minimum: Int64 = 5 << 20
    /// S3's largest part.
    public static let maximum: Int64 = 5 << 30
    public static let maximumParts: Int64 = 10_000
    /// At least 8 MiB, as `aws s3 cp` uses.
    public static let preferred: Int64 = 8 << 20

    /// `requested` when given (checked against S3's limits), else 8 MiB
    /// doubled until the file fits in 10,000 parts.
    public static func choose(fileSize: Int64, requested: Int64? = nil) throws(S3ConfigurationError) -> Int64 {
        if let requested {
            guard (minimum...maximum).contains(requested) else {
                throw S3ConfigurationError("\(requested) bytes is not a part size: give 5M to 5G")
            }
            guard (fileSize + requested - 1) / requested <= maximumParts else {
                throw S3ConfigurationError(
                    "parts of \(requested) bytes would make more than 10,000 parts of a \(fileSize)-byte file: give a larger --part-size"
                )
            }
            return requested
        }
        var size = preferred
        while (fileSize + size - 1) / size > maximumParts { size *= 2 }
        guard size <= maximum else {
            throw S3ConfigurationError("a \(fileSize)-byte file does not fit in 10,000 parts of at most 5 GiB")
        }
        return size
    }
}

/// How the server checks each part's bytes.
public enum S3Checksum: String, Sendable, Hashable, Codable, CaseIterable {
    /// `x-amz-checksum-crc32`, as aws-cli and AWS's SDKs send by default:
    /// CRC32 runs 5× faster than MD5 here, and S3 keeps each part's checksum.
    case crc32
    /// `Content-MD5`, which every S3-compatible server checks; the ETag a
    /// server returns is then compared with it too.
    case md5

    var digest: DigestAlgorithm { self == .md5 ? .md5 : .crc32 }
}

/// The client's S3 choices for one object.
public struct S3Settings: Sendable, Hashable, Codable {
    public var location: S3Location
    public var endpoint: S3Endpoint
    /// `--aws-profile`: credentials from this profile of the shared files,
    /// never from the environment. The keys themselves are found when an
    /// attempt starts, so no secret is in the request (or the journal).
    public var profile: String?
    /// `nil`: `S3PartSize.choose`.
    public var partSize: Int64?
    public var partConcurrency: Int
    /// Files smaller than this go as one `PutObject`.
    public var multipartThreshold: Int64
    /// `nil` (also in journals written before it existed): `.crc32`.
    public var checksum: S3Checksum?
    /// `true` when the key is the URL's prefix and the file's name: a
    /// prepared image that changed format goes under its new name.
    public var keyIsFileName: Bool?

    public var checksumAlgorithm: S3Checksum { checksum ?? .crc32 }

    public static let defaultPartConcurrency = 4

    public init(
        location: S3Location, endpoint: S3Endpoint = S3Endpoint(), profile: String? = nil, partSize: Int64? = nil,
        partConcurrency: Int = S3Settings.defaultPartConcurrency, multipartThreshold: Int64 = S3PartSize.preferred,
        checksum: S3Checksum? = nil, keyIsFileName: Bool? = nil
    ) {
        self.checksum = checksum
        self.keyIsFileName = keyIsFileName
        self.location = location
        self.endpoint = endpoint
        self.profile = profile
        self.partSize = partSize
        self.partConcurrency = partConcurrency
        self.multipartThreshold = multipartThreshold
    }
}
