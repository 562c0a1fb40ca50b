import FoundationEssentials
import Glibc
import TerminalUI
import UploadEngine

/// The history file: one JSON object per finished task, appended, at
/// `$XDG_STATE_HOME/hoist/history.jsonl` (default `~/.local/state/hoist/`).
/// The folder is created 0700 and the file 0600: responses may carry
/// personal data even with secrets masked. Past `rotationBytes` the file
/// becomes `history.1.jsonl` (replacing the one before), so the history
/// keeps between one and two files' worth and never grows without end.
struct HistoryStore: Sendable {
    let path: String
    var rotationBytes: Int64 = 8 << 20

    static func defaultPath() -> String {
        XDG.directory("XDG_STATE_HOME", fallback: ".local/state") + "/hoist/history.jsonl"
    }

    /// The file the history rotated into, read before `path`.
    var previousPath: String {
        (path.hasSuffix(".jsonl") ? String(path.dropLast(".jsonl".count)) : path) + ".1.jsonl"
    }

    /// Appends lines with one `write`, so two Hoist processes never
    /// interleave inside a line. Each append starts on a fresh line: a
    /// half line left by a failed write (disk full) is not glued to the
    /// next entry. The folder is made when missing, and checked (XDG),
    /// unless `folderChecked`: a recorder checks it at its first append, not
    /// at each (four `mkdir`s and an `lstat` per batch of small uploads).
    func append(_ lines: [String], folderChecked: Bool = false) throws {
        if !folderChecked { try XDG.makePrivateDirectories(AtomicFile.folder(of: path)) }
        let fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            // The folder went away since it was checked: made again.
            if folderChecked, errno == ENOENT { return try append(lines) }
            throw StateFileError.errno("cannot open", path)
        }
        var info = stat()
        if fstat(fd, &info) == 0, Int64(info.st_size) >= rotationBytes {
            close(fd)
            try rotate()
            return try append(lines, folderChecked: folderChecked)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var last: UInt8 = UInt8(ascii: "\n")
        if info.st_size > 0, pread(fd, &last, 1, off_t(info.st_size - 1)) == 1, last != UInt8(ascii: "\n") {
            bytes.append(UInt8(ascii: "\n"))
        }
        for line in lines {
            bytes += line.utf8
            bytes.append(UInt8(ascii: "\n"))
        }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw StateFileError.errno("cannot write", path) }
    }

    /// Moves the full file aside, under a lock so two Hoists rotate it once.
    private func rotate() throws {
        let lock = try FileLock(path + ".lock")
        defer { lock.release() }
        var info = stat()
        // Another Hoist may have rotated it while this one waited.
        guard lstat(path, &info) == 0, Int64(info.st_size) >= rotationBytes else { return }
        guard rename(path, previousPath) == 0 else { throw StateFileError.errno("cannot rotate", path) }
        AtomicFile.syncFolder(of: path)
    }

    /// The entries, oldest first, from the rotated file and the current
    /// one; with `limit`, only the last `limit`, read from the end of the
    /// files. A line that is not JSON (a crash mid-write, an edit by hand)
    /// is skipped and counted.
    func read(limit: Int? = nil) throws -> (entries: [JSONValue], skipped: Int) {
        var lines = try Self.lines(of: path, last: limit)
        if limit.map({ lines.count < $0 }) ?? true {
            lines = try Self.lines(of: previousPath, last: limit.map { $0 - lines.count }) + lines
        }
        var entries: [JSONValue] = []
        var skipped = 0
        for line in lines {
            if let value = try? JSONParser.parse(line), case .object = value {
                entries.append(value)
            } else {
                skipped += 1
            }
        }
        return (entries, skipped)
    }

    /// The non-blank lines of a file, or its last `count`: read backwards
    /// in blocks, so `hoist history --limit 10` reads kilobytes, not the file.
    static func lines(of path: String, last count: Int? = nil) throws -> [[UInt8]] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw StateFileError.errno("cannot read", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw StateFileError.errno("cannot read", path) }
        let size = Int64(info.st_size)
        let block: Int64 = 64 << 10
        var end = size
        var tail: [UInt8] = []
        var found: [[UInt8]] = []
        while end > 0 {
            let start = count == nil ? 0 : max(0, end - block)
            var chunk = [UInt8](repeating: 0, count: Int(end - start))
            let got = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
            guard got == chunk.count else { throw StateFileError.errno("cannot read", path) }
            tail = chunk + tail
            end = start
            // Whole lines only: the first one may go on in the block before.
            var pieces = tail.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            tail = end > 0 ? Array(pieces.removeFirst()) : []
            found = pieces.map(Array.init).filter { !$0.allSatisfy { $0 == 0x20 } } + found
            if let count, found.count >= count { return Array(found.suffix(count)) }
        }
        if !tail.isEmpty, !tail.allSatisfy({ $0 == 0x20 }) { found.insert(tail, at: 0) }
        return count.map { Array(found.suffix($0)) } ?? found
    }

    /// The entries as the UI and `hoist history` show them; a line that is
    /// not JSON or lacks a time or URL counts as unreadable.
    func items(limit: Int? = nil) throws -> (items: [HistoryItem], unreadable: Int) {
        let (entries, skipped) = try read(limit: limit)
        let items = entries.compactMap(HistoryItem.init(entry:))
        return (items, skipped + entries.count - items.count)
    }

    /// What to say about `count` lines that were skipped, if any.
    func skippedNote(_ count: Int) -> String? {
        count > 0 ? "\(count) unreadable line\(count == 1 ? "" : "s") in \(path) skipped" : nil
    }
}
