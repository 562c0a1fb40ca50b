import Crypto
import FormData
import FoundationEssentials

/// An AWS access key, its secret and an optional session token. The secret
/// and the token never appear in text: `description` masks them.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "AWSCredentials(\(accessKeyID), secret ****" + (sessionToken == nil ? ")" : ", session token ****)")
    }
}

/// One S3 request before it is signed: where it goes, with its path and
/// query as plain text. The signer encodes them (`SigV4.encode`), so the
/// URL sent and the canonical request are made from the same bytes.
public struct S3RequestLine: Sendable, Hashable {
    public var method: String
    /// `http` or `https`.
    public var scheme: String
    /// The host, with `:port` when it is not the scheme's default.
    public var host: String
    /// The decoded path, `/bucket/key` or `/key`; encoded segment by segment.
    public var path: String
    /// Decoded names and values, in the order they go on the URL; a value
    /// of `nil` is a bare name (`?uploads`).
    public var query: [(name: String, value: String?)]

    public init(method: String, scheme: String, host: String, path: String, query: [(String, String?)] = []) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.path = path
        self.query = query.map { (name: $0.0, value: $0.1) }
    }

    /// `/bucket/my%20key`: each segment encoded, the slashes kept.
    public var encodedPath: String { SigV4.encode(path, keepingSlashes: true) }

    /// `partNumber=3&uploadId=abc`, in the given order.
    public var encodedQuery: String {
        query.map { SigV4.encode($0.name) + ($0.value.map { "=" + SigV4.encode($0) } ?? "") }.joined(separator: "&")
    }

    public var url: String {
        let query = encodedQuery
        return scheme + "://" + host + encodedPath + (query.isEmpty ? "" : "?" + query)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.method == b.method && a.scheme == b.scheme && a.host == b.host && a.path == b.path
            && a.query.elementsEqual(b.query) { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(method)
    }
}

/// AWS Signature Version 4 for S3 and the servers that speak its API, as
/// AWS documents it and botocore's `S3SigV4Auth` computes it (the tests
/// compare the two on generated requests, byte for byte). S3 paths are not
/// normalized: `a//b` and `a/./b` are keys of their own.
public struct SigV4: Sendable {
    public var credentials: AWSCredentials
    public var region: String
    public var service: String

    /// The payload hash when the body is not hashed: over TLS with
    /// `Content-MD5`, the server still checks every byte (S3's own rule).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// SHA-256 of no bytes.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Headers that proxies may change on the way; never signed (botocore's list).
    static let unsignedHeaders: Set<String> = [
        "authorization", "connection", "expect", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
        "trailer", "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id",
    ]

    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to send: `headers`, then `X-Amz-Date`,
    /// `X-Amz-Content-SHA256`, `X-Amz-Security-Token` (with a session
    /// token) and `Authorization`. Every header given is signed, but for
    /// those proxies may change (`unsignedHeaders`).
    public func sign(_ line: S3RequestLine, headers: [HeaderField], payloadHash: String, at date: Date)
        -> [HeaderField]
    {
        let stamp = Self.timestamp(date)
        var sent = headers.filter {
            !["authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"].contains(
                $0.name.lowercased())
        }
        sent.append(HeaderField("X-Amz-Date", stamp))
        if let token = credentials.sessionToken { sent.append(HeaderField("X-Amz-Security-Token", token)) }
        sent.append(HeaderField("X-Amz-Content-SHA256", payloadHash))
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(sent, host: line.host)
        let canonical = Self.canonicalRequest(
            method: line.method, path: line.encodedPath, query: line.encodedQuery, canonicalHeaders: canonicalHeaders,
            signedHeaders: signedHeaders, payloadHash: payloadHash)
        let signature = self.signature(of: canonical, stamp: stamp)
        sent.append(
            HeaderField(
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(stamp)), SignedHeaders=\(signedHeaders), Signature=\(signature)"
            ))
        return sent
    }

    /// A presigned URL (query authentication), valid `expires` seconds from
    /// `date`: the operation's parameters, then the signature's.
    public func presignedURL(_ line: S3RequestLine, headers: [HeaderField] = [], expires: Int, at date: Date) -> String
    {
        let stamp = Self.timestamp(date)
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(headers, host: line.host)
        var signing = line
        signing.query += [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"), ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(stamp))"),
            ("X-Amz-Date", stamp), ("X-Amz-Expires", String(expires)), ("X-Amz-SignedHeaders", signedHeaders),
        ]
        if let token = credentials.sessionToken { signing.query.append(("X-Amz-Security-Token", token)) }
        // A bare name is sent as `name=` once the URL carries a signature.
        signing.query = signing.query.map { ($0.name, $0.value ?? "") }
        let canonical = Self.canonicalRequest(
            method: line.method, path: line.encodedPath, query: signing.encodedQuery,
            canonicalHeaders: canonicalHeaders, signedHeaders: signedHeaders, payloadHash: Self.unsignedPayload)
        return signing.url + "&X-Amz-Signature=" + signature(of: canonical, stamp: stamp)
    }

    // MARK: - The parts, as the SigV4 documentation names them

    static func canonicalRequest(
        method: String, path: String, query: String, canonicalHeaders: String, signedHeaders: String,
        payloadHash: String
    ) -> String {
        [method.uppercased(), path, canonicalQuery(query), canonicalHeaders + "\n", signedHeaders, payloadHash]
            .joined(separator: "\n")
    }

    /// The encoded query's pairs sorted by name, then value; a bare name gets `=`.
    static func canonicalQuery(_ encoded: String) -> String {
        guard !encoded.isEmpty else { return "" }
        let pairs = encoded.split(separator: "&", omittingEmptySubsequences: false).map { pair -> (String, String) in
            guard let equals = pair.firstIndex(of: "=") else { return (String(pair), "") }
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }
        return pairs.sorted { a, b in
            a.0 == b.0 ? a.1.utf8.lexicographicallyPrecedes(b.1.utf8) : a.0.utf8.lexicographicallyPrecedes(b.0.utf8)
        }
        .map { $0.0 + "=" + $0.1 }.joined(separator: "&")
    }

    /// `name:value` lines sorted by name (values trimmed, inner runs of
    /// white space made one space, repeated names joined with commas), and
    /// the signed names. `host` is added when the headers lack it.
    static func canonicalHeaders(_ headers: [HeaderField], host: String) -> (lines: String, signed: String) {
        var values: [String: [String]] = [:]
        for header in headers {
            let name = header.name.lowercased()
            guard !unsignedHeaders.contains(name) else { continue }
            values[name, default: []].append(trimAll(header.value))
        }
        if values["host"] == nil { values["host"] = [host.lowercased()] }
        let names = values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let lines = names.map { $0 + ":" + values[$0]!.joined(separator: ",") }.joined(separator: "\n")
        return (lines, names.joined(separator: ";"))
    }

    static func trimAll(_ value: String) -> String {
        value.split(whereSeparator: { " \t\n\r\u{0B}\u{0C}".contains($0) }).joined(separator: " ")
    }

    func scope(_ stamp: String) -> String {
        "\(stamp.prefix(8))/\(region)/\(service)/aws4_request"
    }

    func stringToSign(_ canonicalRequest: String, stamp: String) -> String {
        let hash = SHA256.hash(data: Data(canonicalRequest.utf8))
        return ["AWS4-HMAC-SHA256", stamp, scope(stamp), Hex.lowercase(hash)].joined(separator: "\n")
    }

    func signature(of canonicalRequest: String, stamp: String) -> String {
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [String(stamp.prefix(8)), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let code = HMAC<SHA256>.authenticationCode(
            for: Data(stringToSign(canonicalRequest, stamp: stamp).utf8), using: key)
        return Hex.lowercase(code)
    }

    /// `20261125T210000Z`.
    static func timestamp(_ date: Date) -> String {
        utcTimestamp(date, format: "%Y%m%dT%H%M%SZ")
    }

    /// RFC 3986 percent-encoding as S3 wants it: letters, digits and `-._~`
    /// stay, every other UTF-8 byte becomes `%XX` (space is `%20`, never `+`).
    public static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlashes:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
