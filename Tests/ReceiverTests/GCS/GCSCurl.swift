import Crypto
import Foundation
import TestSupport

/// Cloud Storage JSON API requests sent with curl to a receiver under test. Sessions are the absolute
/// URLs the receiver's `Location` gives.
struct GCSCurl {
    static let chunk = 256 * 1024
    let base: String
    let scratch = TemporaryDirectory()

    init(_ server: ReceiverHarness) {
        base = server.url
    }

    /// `POST .../o?uploadType=resumable[&name=]`; `name` is percent-encoded here, `body` sent as JSON.
    func initiate(
        bucket: String = "bkt", name: String?, body: String? = nil, headers: [String] = []
    ) async throws -> CurlResult {
        var url = base + "/upload/storage/v1/b/\(bucket)/o?uploadType=resumable"
        if let name { url += "&name=" + Self.encoded(name) }
        var arguments = ["-X", "POST", "--path-as-is"] + headers
        if let body {
            arguments += ["-H", "Content-Type: application/json; charset=UTF-8", "--data-binary", body]
        } else {
            arguments += ["-H", "Content-Length: 0"]
        }
        return try await Curl.run(arguments + [url])
    }

    /// Opens a session and returns its URL.
    func session(bucket: String = "bkt", name: String, headers: [String] = []) async throws -> String {
        let result = try await initiate(bucket: bucket, name: name, headers: headers)
        guard result.status == 200, let location = result.header("Location") else {
            throw SubprocessError(message: "initiation failed: \(result.status) \(result.text) \(result.stderr)")
        }
        return location
    }

    /// A chunk: `range` is the Content-Range value (`bytes 0-262143/*`); nil sends none.
    func put(_ session: String, range: String?, _ bytes: [UInt8], headers: [String] = []) async throws -> CurlResult {
        var arguments = [
            "-X", "PUT", "--data-binary", "@" + file(bytes), "-H", "Content-Type: application/octet-stream",
        ]
        if let range { arguments += ["-H", "Content-Range: \(range)"] }
        return try await Curl.run(arguments + headers + [session])
    }

    /// The chunk of `bytes` at `first` with the range header it needs; `total` nil sends `/*`.
    func put(_ session: String, _ bytes: [UInt8], from first: Int, count: Int, total: Int?) async throws -> CurlResult {
        let piece = Array(bytes[first..<first + count])
        return try await put(
            session, range: "bytes \(first)-\(first + count - 1)/\(total.map(String.init) ?? "*")", piece)
    }

    /// The whole object in one request: `POST .../o?uploadType=media&name=`.
    func media(bucket: String = "bkt", name: String, _ bytes: [UInt8], headers: [String] = []) async throws
        -> CurlResult
    {
        let url = base + "/upload/storage/v1/b/\(bucket)/o?uploadType=media&name=" + Self.encoded(name)
        return try await Curl.run(
            ["-X", "POST", "--data-binary", "@" + file(bytes), "-H", "Content-Type: image/jpeg"] + headers + [url])
    }

    /// The status query: an empty PUT with `Content-Range: bytes */TOTAL`.
    func status(_ session: String, total: String = "*") async throws -> CurlResult {
        try await Curl.run(["-X", "PUT", "-H", "Content-Length: 0", "-H", "Content-Range: bytes */\(total)", session])
    }

    func delete(_ session: String) async throws -> CurlResult {
        try await Curl.run(["-X", "DELETE", "-H", "Content-Length: 0", session])
    }

    /// `GET /storage/v1/b/BUCKET/o/NAME` (percent-encoded here), with `?alt=media` for the bytes.
    func get(bucket: String = "bkt", name: String, media: Bool = false) async throws -> CurlResult {
        try await Curl.run(
            ["--path-as-is", base + "/storage/v1/b/\(bucket)/o/" + Self.encoded(name) + (media ? "?alt=media" : "")])
    }

    /// Everything but unreserved characters percent-encoded, as Google's clients do.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? text
    }

    private func file(_ bytes: [UInt8]) -> String {
        scratch.file(UUID().uuidString, bytes)
    }
}

extension CurlResult {
    /// The `error` object of Google's JSON error body.
    var gcsError: [String: Any]? { (try? json())?["error"] as? [String: Any] }
}

/// Base64 of the MD5, as Cloud Storage's `md5Hash`.
func md5Base64(_ bytes: [UInt8]) -> String {
    Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()
}

/// Base64 of the big-endian CRC-32C by google-crc32c (PyPI), an implementation no one here wrote.
func referenceCRC32C(ofFile path: String) async throws -> String {
    let script = """
        import base64, sys, google_crc32c
        data = open(sys.argv[1], "rb").read()
        print(base64.b64encode(google_crc32c.value(data).to_bytes(4, "big")).decode())
        """
    let result = try await Subprocess.run("/usr/bin/env", ["python3", "-c", script, path], timeout: .seconds(60))
    guard result.status == 0 else {
        throw SubprocessError(message: "google_crc32c failed: \(String(decoding: result.stderr, as: UTF8.self))")
    }
    return String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
