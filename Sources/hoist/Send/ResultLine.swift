import FormData
import FoundationEssentials
import TerminalUI
import UploadEngine

/// The `--json` line for one finished task.
enum ResultLine {
    static let bodyCap = 64 * 1024

    /// The line's UTF-8 bytes, without the newline.
    static func json(for task: TaskSnapshot) -> [UInt8] {
        let response = task.response
        var members = self.members(for: task)
        members.append(.init("json", response?.json ?? .null))
        var body: JSONValue = .null
        if let response, response.json == nil, !response.body.isEmpty {
            switch response.content {
            case .binary(let summary): body = .string("<\(summary)>")
            default: body = .string(String(decoding: response.body.prefix(bodyCap), as: UTF8.self))
            }
        }
        members.append(.init("body", body))
        return JSONValue.object(members).compactJSONBytes
    }

    /// The fields every report of a finished task carries (`--json`, history).
    static func members(for task: TaskSnapshot) -> [JSONValue.Member] {
        let response = task.response
        return [
            .init("id", .number("\(task.id.rawValue)")),
            .init("name", .string(task.request.displayName)),
            .init("url", .string(Secrets.displayURL(task.request.url))),
            .init("ok", .bool(task.state == .succeeded)),
            .init("status", response.map { .number("\($0.status)") } ?? .null),
            .init("bytes_sent", .number("\(task.progress.bytesSent)")),
            .init("bytes_total", task.progress.totalBytes.map { .number("\($0)") } ?? .null),
            .init("duration_ms", .number("\(milliseconds(task))")),
            .init("attempts", .number("\(task.attempts)")),
            .init("answered_early", .bool(task.answeredEarly)),
            // A retry resent a body that may already have arrived whole.
            .init("possible_duplicate", .bool(task.possibleDuplicate)),
            .init("error", errorText(task).map(JSONValue.string) ?? .null),
            .init("message", task.failure?.serverMessage.map(JSONValue.string) ?? .null),
            // A resumable transfer: where it lives and what the server already had.
            .init("upload_url", task.checkpoint.map { .string(Secrets.displayURL($0.uploadURL)) } ?? .null),
            .init("resumed_from", task.resumedFrom.map { .number("\($0)") } ?? .null),
            // Failed with its server out of reach, and left for `hoist resume`.
            .init("kept_for_resume", .bool(task.keptForResume)),
            // Photos prepared before they went: what each became.
            .init("images", task.preparedImages.isEmpty ? .null : .array(task.preparedImages.map(imageMembers))),
        ]
    }

    private static func imageMembers(_ image: PreparedImage) -> JSONValue {
        .object([
            .init("file", .string(image.source)),
            .init("sent_as", .string(image.filename)),
            .init("content_type", .string(image.contentType)),
            .init("width", .number("\(image.width)")),
            .init("height", .number("\(image.height)")),
            .init("bytes", .number("\(image.bytes)")),
            .init("quality", image.quality.map { .number("\($0)") } ?? .null),
            .init("original_width", .number("\(image.originalWidth)")),
            .init("original_height", .number("\(image.originalHeight)")),
            .init("original_bytes", .number("\(image.originalBytes)")),
        ])
    }

    /// `done 200  身份证 正面.jpg  20.0 KiB in 35 ms  {"files":[…]}`
    static func summary(for task: TaskSnapshot) -> String {
        let status = task.response.map { "\($0.status)" } ?? "---"
        var line =
            "\(task.state.name.padded(to: 9)) \(status)  \(task.request.displayName)"
        line += "  \(Format.bytes(task.progress.bytesSent)) in \(milliseconds(task)) ms"
        if let error = errorText(task) { line += "  " + error }
        if let checkpoint = task.checkpoint {
            line += "\n          " + checkpoint.summary
            if let from = task.resumedFrom { line += ", resumed at " + Format.bytes(from) }
        }
        if let json = task.response?.json {
            let text = json.compactJSON
            line += "\n          " + (text.count > 240 ? text.prefix(240) + "…" : text)
        }
        return line
    }

    private static func errorText(_ task: TaskSnapshot) -> String? {
        switch task.state {
        case .failed(let failure): return failure.description
        case .cancelled(let reason): return UploadFailure.cancelled(reason)
        default: return nil
        }
    }

    private static func milliseconds(_ task: TaskSnapshot) -> Int64 {
        guard let start = task.startedAt, let end = task.finishedAt else { return 0 }
        let (seconds, attoseconds) = (end - start).components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
