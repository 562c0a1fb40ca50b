import Foundation
import Receiver
import TestSupport

/// What one run of /usr/bin/curl produced.
struct CurlResult: Sendable {
    var exitCode: Int32
    /// Final HTTP status; 0 when no answer arrived.
    var status: Int
    var body: Data
    /// Header block of the final answer (after any `100 Continue`).
    var headerBlock: String
    var stderr: String

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        for line in headerBlock.split(separator: "\r\n") {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2, pieces[0].lowercased() == name.lowercased() {
                return pieces[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    func upload() throws -> ReceivedUpload {
        try JSONDecoder().decode(ReceivedUpload.self, from: body)
    }

    func json() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
    }
}

/// Runs curl as a subprocess without blocking a thread of the Swift concurrency pool (the receiver
/// under test answers on that pool too).
enum Curl {
    static func run(_ arguments: [String]) async throws -> CurlResult {
        let scratch = TemporaryDirectory()
        let bodyPath = scratch.sub("body")
        let headersPath = scratch.sub("headers")
        let result = try await Subprocess.run(
            "/usr/bin/curl",
            ["--silent", "--show-error", "--max-time", "300", "-o", bodyPath, "-D", headersPath, "-w", "%{http_code}"]
                + arguments,
            // curl's own --max-time ends it first; a full parallel suite on two cores has been seen
            // to hold a 200 MB upload past 90 s (it takes 1-8 s alone).
            timeout: .seconds(310))
        let read = { (path: String) in FileManager.default.contents(atPath: path) ?? Data() }
        let headers = String(decoding: read(headersPath), as: UTF8.self)
        let blocks = headers.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        return CurlResult(
            exitCode: result.status,
            // %{http_code} shows a lone "100 Continue" as 100; that is no answer.
            status: Int(String(decoding: result.stdout, as: UTF8.self)).flatMap { $0 >= 200 ? $0 : nil } ?? 0,
            body: read(bodyPath),
            headerBlock: blocks.last ?? "",
            stderr: String(decoding: result.stderr, as: UTF8.self)
        )
    }
}
