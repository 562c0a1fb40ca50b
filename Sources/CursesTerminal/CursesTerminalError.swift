#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the full-screen UI could not start. Each message says what was
/// wrong and what to do instead.
public enum CursesTerminalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// stdin or stdout is not a terminal (a pipe, a file, a CI job).
    case notATerminal
    /// ncurses has no terminfo entry for `$TERM` (or it is unset).
    case unknownTerminal(term: String?)
    /// `run` was called while another session is still running.
    case alreadyRunning
    /// The file given as `stderrPath` could not be opened.
    case cannotOpenStderrFile(path: String, errno: Int32)
    /// A system call the session needs failed.
    case systemCall(String, errno: Int32)

    public var description: String {
        switch self {
        case .notATerminal:
            return "hoist's UI needs a terminal; use `hoist send` in scripts"
        case .unknownTerminal(let term?):
            return
                "the terminal type \"\(term)\" is unknown to ncurses; set TERM to one it knows, e.g. TERM=xterm-256color"
        case .unknownTerminal(nil):
            return "TERM is not set; set it to your terminal's type, e.g. TERM=xterm-256color"
        case .alreadyRunning:
            return "the terminal UI is already running; run one session at a time"
        case .cannotOpenStderrFile(let path, let code):
            return "cannot open \(path) for the UI's stderr log: \(Self.message(for: code)); pass a writable path"
        case .systemCall(let call, let code):
            return "\(call) failed while setting up the terminal: \(Self.message(for: code))"
        }
    }

    static func message(for code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
