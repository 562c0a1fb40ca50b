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

    @Option(help: "Only the last N tasks.")
    var limit: Int?

    func run() throws {
        if let limit, limit < 0 { throw BadInput("--limit must be 0 or more") }
        let store = HistoryStore(path: HistoryStore.defaultPath())
        let lines: [String]
        let skipped: Int
        if json {
            let read = try store.read(limit: limit)
            (lines, skipped) = (read.entries.map(\.compactJSON), read.skipped)
        } else {
            let read = try store.items(limit: limit)
            (lines, skipped) = (read.items.map(HistoryLine.text(for:)), read.unreadable)
        }
        // JSON lines are escaped by their encoder; text lines here.
        for line in lines {
            if json { writeOut(Array((line + "\n").utf8)) } else { printLine(line) }
        }
        if let note = store.skippedNote(skipped) { printError("hoist: " + note) }
        if lines.isEmpty, !json { printError("hoist: no history yet at \(store.path)") }
    }
}

/// `2026-11-23 08:41:07  ✔ 200  POST  身份证 正面.jpg  176 KiB  35 ms  http://…/upload`
enum HistoryLine {
    static func text(for item: HistoryItem) -> String {
        var line =
            "\(item.displayTime)  \(item.ok ? "✔" : "✘") \(item.status.map(String.init) ?? "---")  \(item.method.rawValue)  \(item.name)"
        line += "  \(Format.bytes(item.bytesSent))  \(item.durationMs) ms  \(item.url)"
        if let problem = item.problem { line += "\n    " + problem }
        return line
    }
}
