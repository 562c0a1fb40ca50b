import Foundation
import Glibc
import TerminalUI
import UploadEngine

/// The history file: one JSON object per finished task, appended, at
/// `$XDG_STATE_HOME/hoist/history.jsonl` (default `~/.local/state/hoist/`).
/// The folder is created 0700 and the file 0600: responses may carry
/// personal data even with secrets masked.
struct HistoryStore: Sendable {
    let path: String

    static func defaultPath() -> String {
        XDG.directory("XDG_STATE_HOME", fallback: ".local/state") + "/hoist/history.jsonl"
    }

    /// Appends lines with one `write`, so two Hoist processes never
    /// interleave inside a line. The folder is made only when it is missing.
    func append(_ lines: [String]) throws {
        var fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        if fd < 0, errno == ENOENT {
            try XDG.makePrivateDirectories((path as NSString).deletingLastPathComponent)
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else { throw StateFileError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line.utf8
            bytes.append(UInt8(ascii: "\n"))
        }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw StateFileError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The entries, oldest first. A line that is not JSON (a crash mid-write
    /// on another system, an edit by hand) is skipped and counted.
    func read() throws -> (entries: [JSONValue], skipped: Int) {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw StateFileError("cannot read \(path)") }
            return ([], 0)
        }
        var entries: [JSONValue] = []
        var skipped = 0
        for line in Array(data).split(separator: UInt8(ascii: "\n")) where !line.allSatisfy({ $0 == 0x20 }) {
            if let value = try? JSONParser.parse(Array(line)), case .object = value {
                entries.append(value)
            } else {
                skipped += 1
            }
        }
        return (entries, skipped)
    }

    /// The entries as the UI and `hoist history` show them; a line that is
    /// not JSON or lacks a time or URL counts as unreadable.
    func items() throws -> (items: [HistoryItem], unreadable: Int) {
        let (entries, skipped) = try read()
        let items = entries.compactMap(HistoryItem.init(entry:))
        return (items, skipped + entries.count - items.count)
    }

    /// What to say about `count` lines that were skipped, if any.
    func skippedNote(_ count: Int) -> String? {
        count > 0 ? "\(count) unreadable line\(count == 1 ? "" : "s") in \(path) skipped" : nil
    }
}
