import UploadEngine

/// One finished upload from the history file, as the history overlay shows it.
public struct HistoryItem: Sendable, Hashable {
    public struct File: Sendable, Hashable {
        public var field: String
        public var path: String
        public var size: Int64?
    }

    /// How a task ended: a cancelled one is not a failure (issue 37 #8).
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        case succeeded, failed, cancelled

        public init(_ state: TaskState) {
            switch state {
            case .succeeded: self = .succeeded
            case .cancelled: self = .cancelled
            default: self = .failed
            }
        }
    }

    public var time: String
    public var ok: Bool
    public var outcome: Outcome
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
        outcome = ok ? .succeeded : problem?.hasPrefix("cancelled") == true ? .cancelled : .failed
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
        // Written since issue 37 #8; before it, told from ok and the error.
        if let written = string(entry[path: "outcome"]).flatMap(Outcome.init(rawValue:)) { outcome = written }
    }

    /// The glyph the Tasks pane gives the same end.
    public var mark: String {
        switch outcome {
        case .succeeded: return "✔"
        case .failed: return "✘"
        case .cancelled: return "⊘"
        }
    }
}

/// The history overlay (`L`): finished uploads, newest first, with the
/// selected one's files and answer. Enter stages its files again and aims
/// the target at its URL, so `u` re-runs it with the current fields.
public struct HistoryBrowser: ScrollingList, Sendable, Hashable {
    /// Every item read, newest first.
    public private(set) var all: [HistoryItem]
    /// The items the filter keeps: what the list shows.
    public private(set) var items: [HistoryItem]
    public var cursor = 0
    public var top = 0
    public var isLoading: Bool
    public var error: String?
    /// `/`: an outcome (`failed`, `cancelled`, `succeeded` or `ok`) or words
    /// that the name, URL, message or a file's path holds, in any case (issue 37 #8).
    public private(set) var filter = ""
    /// The filter while it is typed.
    public var filterInput: TextInput?

    public init(items: [HistoryItem] = [], isLoading: Bool = true, error: String? = nil) {
        all = items
        self.items = items
        self.isLoading = isLoading
        self.error = error
    }

    public mutating func setFilter(_ text: String) {
        filter = text
        let words = text.lowercased().split(separator: " ").map(String.init)
        items = words.isEmpty ? all : all.filter { item in words.allSatisfy { Self.matches(item, $0) } }
        cursor = 0
        top = 0
    }

    private static func matches(_ item: HistoryItem, _ word: String) -> Bool {
        if word == "ok" { return item.outcome == .succeeded }
        if let outcome = HistoryItem.Outcome(rawValue: word) { return item.outcome == outcome }
        return ([item.name, item.url, item.problem ?? ""] + item.files.map(\.path)).contains {
            $0.lowercased().contains(word)
        }
    }
}
