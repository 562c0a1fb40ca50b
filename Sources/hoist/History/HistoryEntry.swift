import Crypto
import FormData
import FoundationEssentials
import Glibc
import TerminalUI
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
        var members: [JSONValue.Member] = [.init("time", .string(iso8601(time)))]
        members += ResultLine.members(for: task)
        members.append(.init("outcome", .string(HistoryItem.Outcome(task.state).rawValue)))
        members.append(.init("method", .string(task.request.method.rawValue)))
        let files = files(of: task.request.body)
        // As the engine read them to send (not for prepared images: the entry names the originals).
        let sent = task.sentFiles.flatMap { $0.count == files.count && task.preparedImages.isEmpty ? $0 : nil }
        members.append(.init("files", .array(files.indices.map { describe(files[$0], sent: sent?[$0]) })))
        members.append(.init("response", responseSummary(task, secretFields: secretFields)))
        // Last, anything that holds a secret the request sent (an echoed
        // token, a message quoting it) is masked wherever it is. The keys
        // are the entry's own, none secret, and the answer's, masked above:
        // with no secret sent there is nothing left to look for.
        let values = Secrets.values(in: task.request, marked: secretFields)
        return values.isEmpty ? .object(members) : Secrets.masked(.object(members), values: values)
    }

    private static func responseSummary(_ task: TaskSnapshot, secretFields: Set<String>) -> JSONValue {
        guard let response = task.response else { return .null }
        if let json = response.json {
            // Masked before it may be cut: a cut answer is a string, no longer keys.
            let masked = Secrets.masked(json, marked: secretFields)
            let text = masked.compactJSON
            return text.utf8.count <= responseCap
                ? masked : .string(String(decoding: text.utf8.prefix(responseCap), as: UTF8.self) + "…")
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
        case .urlencoded, .json, .bytes, .stream: return []
        }
    }

    /// `2026-11-23T08:29:15Z`. strftime, because an ISO8601DateFormatter
    /// costs about a millisecond to make, once per task.
    static func iso8601(_ date: Date) -> String {
        utcTimestamp(date, format: "%Y-%m-%dT%H:%M:%SZ")
    }

    /// Hoist never changes its working directory; asking once spares a getcwd per file.
    private static let workingDirectory = FileManager.default.currentDirectoryPath

    private static func describe(_ file: (field: String, path: String), sent: SentFile?) -> JSONValue {
        let absolute = file.path.hasPrefix("/") ? file.path : workingDirectory + "/" + file.path
        let (size, digest) = sent.map { ($0.size, $0.sha256) } ?? sizeAndHash(file.path)
        return .object([
            .init("field", .string(file.field)),
            .init("path", .string(absolute)),
            .init("size", size.map { .number("\($0)") } ?? .null),
            .init("sha256", digest.map(JSONValue.string) ?? .null),
        ])
    }

    /// The file's size and, up to `hashLimit`, its SHA-256: one open and one
    /// fstat (for a small file, one read too). A file that cannot be opened
    /// still has its size from stat.
    private static func sizeAndHash(_ path: String) -> (size: Int64?, sha256: String?) {
        var info = stat()
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (stat(path, &info) == 0 ? Int64(info.st_size) : nil, nil) }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else { return (nil, nil) }
        let size = Int64(info.st_size)
        guard size <= hashLimit else { return (size, nil) }
        // Not zeroed first: for small files that memset cost as much as the read.
        return withUnsafeTemporaryAllocation(byteCount: Int(min(max(size, 4096), 1 << 20)), alignment: 16) { buffer in
            var hasher = SHA256()
            while true {
                let count = read(fd, buffer.baseAddress, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    return (size, count == 0 ? hasher.finalize().withUnsafeBytes { Hex.lowercase($0) } : nil)
                }
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
    }
}
