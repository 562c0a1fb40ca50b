import Crypto
import FormData
import Foundation
import UploadEngine

/// One line of the history file: what `--json` prints for the task, plus
/// when, the method, the files sent (size and SHA-256) and a summary of the
/// answer. Secrets are masked before anything is written.
enum HistoryEntry {
    /// Answers longer than this are kept as a cut string, not as JSON.
    static let responseCap = 4096
    /// Files larger than this are not hashed: hashing 1 GiB would add
    /// seconds to an upload that took one. Their `sha256` is null.
    static let hashLimit: Int64 = 64 << 20

    static func make(for task: TaskSnapshot, secretFields: Set<String>, at time: Date = Date()) -> JSONValue {
        var members: [JSONValue.Member] = [.init("time", .string(ISO8601DateFormatter().string(from: time)))]
        members += ResultLine.members(for: task)
        members.append(.init("method", .string(task.request.method.rawValue)))
        members.append(.init("files", .array(files(of: task.request.body).map(describe))))
        members.append(.init("response", responseSummary(task, secretFields: secretFields)))
        // Last, anything that holds a secret the request sent (an echoed
        // token, a message quoting it) is masked wherever it is.
        return Secrets.masked(.object(members), values: Secrets.values(in: task.request, marked: secretFields))
    }

    private static func responseSummary(_ task: TaskSnapshot, secretFields: Set<String>) -> JSONValue {
        guard let response = task.response else { return .null }
        if let json = response.json {
            let masked = Secrets.masked(json, marked: secretFields)
            let text = masked.compactJSON
            return text.utf8.count <= responseCap ? masked : .string(String(text.utf8.prefix(responseCap))! + "…")
        }
        if case .binary(let summary) = response.content { return .string("<\(summary)>") }
        let text = String(decoding: response.body.prefix(responseCap), as: UTF8.self)
        return text.isEmpty ? .null : .string(text)
    }

    /// (field, path) of every file the body reads.
    static func files(of body: UploadRequest.Body) -> [(field: String, path: String)] {
        switch body {
        case .multipart(let form):
            return form.parts.compactMap { part in
                if case .file(let path) = part.content { return (part.name, path) }
                return nil
            }
        case .rawFile(let path, _): return [("", path)]
        case .base64JSON(let body): return [(body.fileField, body.path)]
        case .urlencoded, .json, .bytes: return []
        }
    }

    private static func describe(_ file: (field: String, path: String)) -> JSONValue {
        let absolute = file.path.hasPrefix("/") ? file.path : FileManager.default.currentDirectoryPath + "/" + file.path
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        return .object([
            .init("field", .string(file.field)),
            .init("path", .string(absolute)),
            .init("size", size.map { .number("\($0)") } ?? .null),
            .init("sha256", size.flatMap { $0 <= hashLimit ? sha256(ofFile: file.path) : nil }.map(JSONValue.string) ?? .null),
        ])
    }

    private static func sha256(ofFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
