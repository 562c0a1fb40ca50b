import ArgumentParser
import Foundation
import TerminalUI
import UploadEngine

/// `hoist history`: the finished uploads, newest last.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print the finished uploads recorded by hoist send and the UI.",
        discussion: "The history is at $XDG_STATE_HOME/hoist/history.jsonl (default ~/.local/state/hoist/history.jsonl), one JSON object per task, secrets masked."
    )

    @Flag(name: .customLong("json"), help: "Print the recorded JSON lines as they are.")
    var json = false

    @Option(help: "Only the last N tasks.")
    var limit: Int?

    func run() throws {
        if let limit, limit < 0 { throw BadInput("--limit must be 0 or more") }
        let store = HistoryStore(path: HistoryStore.defaultPath())
        let (entries, skipped) = try store.read()
        let shown = limit.map { Array(entries.suffix($0)) } ?? entries
        for entry in shown {
            writeOut(Array(((json ? entry.compactJSON : HistoryLine.text(for: entry)) + "\n").utf8))
        }
        if skipped > 0 { printError("hoist: \(skipped) unreadable line\(skipped == 1 ? "" : "s") in \(store.path) skipped") }
        if entries.isEmpty, !json { printError("hoist: no history yet at \(store.path)") }
    }
}

/// `2026-11-23 08:41:07  ✔ 200  POST  身份证 正面.jpg  176 KiB  35 ms  http://…/upload`
enum HistoryLine {
    static func text(for entry: JSONValue) -> String {
        func string(_ key: String) -> String? {
            if case .string(let value)? = entry[path: key] { return value }
            return nil
        }
        func number(_ key: String) -> Int64? {
            if case .number(let literal)? = entry[path: key] { return Int64(literal) }
            return nil
        }
        let ok = entry[path: "ok"] == .bool(true)
        let time = string("time").map { $0.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "") } ?? "?"
        var line = "\(time)  \(ok ? "✔" : "✘") \(number("status").map(String.init) ?? "---")  \(string("method") ?? "?")  \(string("name") ?? "?")"
        line += "  \(Format.bytes(number("bytes_sent") ?? 0))  \(number("duration_ms") ?? 0) ms  \(string("url") ?? "")"
        if let message = string("message") ?? string("error") { line += "\n    " + message }
        return line
    }
}
