import UploadEngine

/// One finished upload from the history file, as the history overlay shows it.
public struct HistoryItem: Sendable, Hashable {
    public struct File: Sendable, Hashable {
        public var field: String
        public var path: String
        public var size: Int64?
    }

    public var time: String
    public var ok: Bool
    public var status: Int?
    public var method: UploadRequest.Method
    public var name: String
    public var url: String
    public var bytesSent: Int64
    public var durationMs: Int64
    /// The server's message, else the error.
    public var problem: String?
    public var files: [File]
    public var response: JSONValue?

    public init(
        time: String, ok: Bool, status: Int?, method: UploadRequest.Method, name: String, url: String,
        bytesSent: Int64, durationMs: Int64, problem: String?, files: [File], response: JSONValue?
    ) {
        self.time = time
        self.ok = ok
        self.status = status
        self.method = method
        self.name = name
        self.url = url
        self.bytesSent = bytesSent
        self.durationMs = durationMs
        self.problem = problem
        self.files = files
        self.response = response
    }

    /// `2026-11-23 08:29:15` from the recorded `2026-11-23T08:29:15Z`.
    public var displayTime: String {
        time.replacing("T", with: " ").replacing("Z", with: "")
    }

    /// Reads one history line; nil when it lacks what the overlay needs.
    public init?(entry: JSONValue) {
        func string(_ value: JSONValue?) -> String? {
            if case .string(let text)? = value { return text }
            return nil
        }
        func number(_ value: JSONValue?) -> Int64? {
            if case .number(let literal)? = value { return Int64(literal) }
            return nil
        }
        guard let time = string(entry[path: "time"]), let url = string(entry[path: "url"]) else { return nil }
        var files: [File] = []
        if case .array(let items)? = entry[path: "files"] {
            for item in items {
                guard let path = string(item[path: "path"]) else { continue }
                files.append(
                    File(field: string(item[path: "field"]) ?? "file", path: path, size: number(item[path: "size"])))
            }
        }
        self.init(
            time: time, ok: entry[path: "ok"] == .bool(true), status: number(entry[path: "status"]).map(Int.init),
            method: string(entry[path: "method"]).flatMap(UploadRequest.Method.init(rawValue:)) ?? .post,
            name: string(entry[path: "name"]) ?? url, url: url, bytesSent: number(entry[path: "bytes_sent"]) ?? 0,
            durationMs: number(entry[path: "duration_ms"]) ?? 0,
            problem: string(entry[path: "message"]) ?? string(entry[path: "error"]),
            files: files, response: entry[path: "response"].flatMap { $0 == .null ? nil : $0 })
    }
}

/// The history overlay (`L`): finished uploads, newest first, with the
/// selected one's files and answer. Enter stages its files again and aims
/// the target at its URL, so `u` re-runs it with the current fields.
public struct HistoryBrowser: ScrollingList, Sendable, Hashable {
    public var items: [HistoryItem]
    public var cursor = 0
    public var top = 0
    public var isLoading: Bool
    public var error: String?

    public init(items: [HistoryItem] = [], isLoading: Bool = true, error: String? = nil) {
        self.items = items
        self.isLoading = isLoading
        self.error = error
    }
}
