import ArgumentParser
import FoundationEssentials
import TerminalUI
import UploadEngine

/// `hoist history`: the finished uploads, newest last.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print the finished uploads recorded by hoist send and the UI.",
        discussion:
            "The history is at $XDG_STATE_HOME/hoist/history.jsonl (default ~/.local/state/hoist/history.jsonl), one JSON object per task, secrets masked."
    )

    @Flag(name: .customLong("json"), help: "Print the recorded JSON lines as they are.")
    var json = false

    @Option(help: "Only the last N tasks (of those the other options keep).")
    var limit: Int?

    @Flag(help: "Only the failed uploads: not those that succeeded or were cancelled.")
    var failed = false

    @Option(
        help: ArgumentHelp(
            "Only the uploads that ended since then: a time ago (30m, 12h, 1d, 2w) or a UTC date (2026-11-28, 2026-11-28T09:00:00Z).",
            valueName: "when"))
    var since: String?

    func run() throws {
        if let limit, limit < 0 { throw BadInput("--limit must be 0 or more") }
        let store = HistoryStore(path: HistoryStore.defaultPath())
        let from = try since.map { try HistorySince.parse($0, now: Date()) }
        let filtered = failed || from != nil
        // Filtered, the whole history is read, and the limit is the last N kept.
        let read = try store.read(limit: filtered ? nil : limit)
        var kept: [(entry: JSONValue, item: HistoryItem?)] = read.entries.map { ($0, HistoryItem(entry: $0)) }
        if filtered {
            kept = kept.filter { entry, item in
                guard let item else { return false }
                return (!failed || item.outcome == .failed) && from.map { item.time >= $0 } ?? true
            }
            if let limit { kept = Array(kept.suffix(limit)) }
        }
        let lines: [String]
        let skipped: Int
        if json {
            (lines, skipped) = (kept.map(\.entry.compactJSON), read.skipped)
        } else {
            let items = kept.compactMap(\.item)
            (lines, skipped) = (items.map(HistoryLine.text(for:)), read.skipped + kept.count - items.count)
        }
        // JSON lines are escaped by their encoder; text lines here.
        for line in lines {
            if json { writeOut(Array((line + "\n").utf8)) } else { printLine(line) }
        }
        if let note = store.skippedNote(skipped) { printError("hoist: " + note) }
        if lines.isEmpty, !json {
            printError(filtered ? "hoist: no upload in the history matches" : "hoist: no history yet at \(store.path)")
        }
    }
}

/// `--since`: a time ago or a UTC date, as the history's timestamps compare
/// (`2026-11-28T09:00:00Z` sorts as text).
enum HistorySince {
    static func parse(_ text: String, now: Date) throws -> String {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400]
        if let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()), count >= 0 {
            return HistoryEntry.iso8601(now.addingTimeInterval(-count * unit))
        }
        let date = #/^\d{4}-\d{2}-\d{2}$/#
        let stamp = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/#
        if text.wholeMatch(of: date) != nil { return text + "T00:00:00Z" }
        if text.wholeMatch(of: stamp) != nil { return text }
        throw BadInput(
            "--since \(String(reflecting: text)): give a time ago (30m, 12h, 1d, 2w) or a UTC date (2026-11-28 or 2026-11-28T09:00:00Z)"
        )
    }
}

/// `2026-11-23 08:41:07  ✔ 200  POST  身份证 正面.jpg  176 KiB  35 ms  http://…/upload`
enum HistoryLine {
    static func text(for item: HistoryItem) -> String {
        var line =
            "\(item.displayTime)  \(item.mark) \(item.status.map(String.init) ?? "---")  \(item.method.rawValue)  \(item.name)"
        line += "  \(Format.bytes(item.bytesSent))  \(item.durationMs) ms  \(item.url)"
        if let problem = item.problem { line += "\n    " + problem }
        return line
    }
}
