import Glibc
import TerminalUI
import UploadEngine
import WireRules

/// Where `hoist send` writes response bodies, as curl does: stdout, unless
/// that is a terminal and the body is binary or holds escape sequences
/// (a warning then says how to get it); `-o FILE` writes them to a file,
/// `-o -` to stdout whatever they hold.
final class BodyOutput {
    private let descriptor: Int32
    private let checksTerminal: Bool

    /// Opens (creates or empties) `path`; `nil` or `-` is stdout.
    init(path: String?) throws {
        guard let path, path != "-" else {
            descriptor = STDOUT_FILENO
            checksTerminal = path == nil && isatty(STDOUT_FILENO) == 1
            return
        }
        let opened = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard opened >= 0 else {
            throw BadInput("-o \(path): cannot write there: \(String(cString: strerror(errno)))")
        }
        descriptor = opened
        checksTerminal = false
    }

    deinit {
        if descriptor != STDOUT_FILENO { close(descriptor) }
    }

    /// Writes one task's body, or the warning to stderr that stands for it.
    func write(_ body: [UInt8], of task: TaskSnapshot) {
        guard checksTerminal else { return writeAll(body, to: descriptor) }
        guard TerminalText.isSafeToShow(body) else {
            printError(
                "hoist: \(task.id) \(task.request.displayName): the answer (\(Format.bytes(Int64(body.count))))"
                    + " is binary or holds terminal escape sequences, so it is not printed here;"
                    + " use -o FILE to save it, -o - to print it anyway, or --json")
            return
        }
        writeAll(body, to: descriptor)
        if body.last != UInt8(ascii: "\n") { writeAll([0x0A], to: descriptor) }
    }
}
