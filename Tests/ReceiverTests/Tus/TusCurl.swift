import Foundation
import TestSupport

/// tus requests sent with curl to a receiver under test. Paths are relative (`/files/ID`), as the receiver's
/// `Location` is.
struct TusCurl {
    let base: String
    let scratch = TemporaryDirectory()

    init(_ server: ReceiverHarness) {
        base = server.url
    }

    static let version = ["-H", "Tus-Resumable: 1.0.0"]
    static let chunkType = ["-H", "Content-Type: application/offset+octet-stream"]

    /// `Upload-Metadata` from pairs, values base64-encoded; a nil value sends the key alone.
    static func metadata(_ pairs: [(String, String?)]) -> String {
        pairs.map { key, value in value.map { key + " " + Data($0.utf8).base64EncodedString() } ?? key }
            .joined(separator: ",")
    }

    func options(_ path: String = "/files") async throws -> CurlResult {
        try await Curl.run(["-X", "OPTIONS", base + path])
    }

    /// POST: `length` nil defers it; `body` makes it a creation-with-upload.
    func create(
        length: Int?, metadata: String? = nil, body: [UInt8]? = nil,
        bodyType: String = "application/offset+octet-stream", headers: [String] = [], path: String = "/files"
    ) async throws -> CurlResult {
        var arguments = Self.version + ["-X", "POST"]
        arguments += length.map { ["-H", "Upload-Length: \($0)"] } ?? ["-H", "Upload-Defer-Length: 1"]
        if let metadata { arguments += ["-H", "Upload-Metadata: \(metadata)"] }
        if let body { arguments += ["-H", "Content-Type: " + bodyType, "--data-binary", "@" + file(body)] }
        return try await Curl.run(arguments + headers + [base + path])
    }

    func head(_ location: String, headers: [String] = Self.version) async throws -> CurlResult {
        try await Curl.run(["-I"] + headers + [base + location])
    }

    func patch(
        _ location: String, offset: Int, _ bytes: [UInt8], headers: [String] = Self.version + Self.chunkType
    ) async throws -> CurlResult {
        try await Curl.run(
            ["-X", "PATCH", "-H", "Upload-Offset: \(offset)", "--data-binary", "@" + file(bytes)] + headers + [
                base + location
            ])
    }

    func delete(_ location: String) async throws -> CurlResult {
        try await Curl.run(["-X", "DELETE"] + Self.version + [base + location])
    }

    /// Creates an upload of `length` bytes and returns its `Location`.
    func created(length: Int?, filename: String? = nil) async throws -> String {
        let result = try await create(length: length, metadata: filename.map { Self.metadata([("filename", $0)]) })
        guard result.status == 201, let location = result.header("Location") else {
            throw SubprocessError(message: "creation failed: \(result.status) \(result.text) \(result.stderr)")
        }
        return location
    }

    private func file(_ bytes: [UInt8]) -> String {
        scratch.file(UUID().uuidString, bytes)
    }
}

extension CurlResult {
    var offset: Int? { header("Upload-Offset").flatMap(Int.init) }
}

/// Waits until `condition` holds (log entries arrive just after the answer was written), up to 5 s.
func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<500 where !condition() {
        try await Task.sleep(for: .milliseconds(10))
    }
}
