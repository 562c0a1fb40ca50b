import CNcursesw
import TerminalUI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The only module that calls ncurses. It runs a `TerminalProgram`
/// full-screen: keys, wakes, ticks, signals and resizes go in on one
/// thread, and frames come out as the cells that changed.
public enum CursesTerminal {
    public struct Options: Sendable, Hashable {
        /// Where stderr goes while curses owns the screen; nil discards it.
        /// It is appended to, and created if missing.
        public var stderrPath: String?
        /// Report left clicks and the wheel as `Key.click` and `Key.wheel`.
        /// The terminal's own mouse selection then needs Shift held.
        public var mouse: Bool
        /// The shortest time between two frames (33 ms: at most 30 a second).
        public var frameInterval: Duration
        /// How long a lone Esc waits for the rest of an escape sequence.
        public var escapeDelay: Duration
        /// When the environment's locale is not UTF-8 (LANG unset, LC_ALL=C),
        /// draw in UTF-8 anyway instead of blanking every non-ASCII cell.
        public var preferUTF8: Bool

        public init(
            stderrPath: String? = nil, mouse: Bool = true,
            frameInterval: Duration = .milliseconds(33), escapeDelay: Duration = .milliseconds(25),
            preferUTF8: Bool = true
        ) {
            self.stderrPath = stderrPath
            self.mouse = mouse
            self.frameInterval = frameInterval
            self.escapeDelay = escapeDelay
            self.preferUTF8 = preferUTF8
        }
    }

    /// The linked ncurses library's version string, e.g. "ncurses 6.4.20221231".
    public static var libraryVersion: String {
        String(cString: curses_version())
    }

    /// Runs `program` full-screen on stdin/stdout until its `handle` returns
    /// false. Blocks the calling thread, which is the only thread that calls
    /// the program (`start`, `handle`, `needsRedraw`, `render`,
    /// `tickInterval`); the `wake` function handed to `start` may be called
    /// from any thread, also after `run` has returned (it then does nothing).
    ///
    /// SIGINT, SIGTERM and SIGHUP arrive as `.signal(n)` while it runs; the
    /// program decides whether to stop. The terminal is restored however the
    /// session ends: a normal return, a thrown error, a signal the program
    /// stops for, or a crash (trap or bad access).
    ///
    /// - Throws: `CursesTerminalError`, before the screen is touched, when
    ///   stdin or stdout is not a terminal, TERM is unknown, or a session is
    ///   already running.
    @discardableResult
    public static func run(_ program: some TerminalProgram, options: Options = .init())
        throws(CursesTerminalError) -> FrameStats
    {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }

        // Before ncurses starts: it installs its own SIGWINCH/SIGINT handlers only
        // where none exists, and those would act inside the signal.
        var signals = try SignalPipe.install()
        defer { signals.restore() }
        let wake = try WakePipe()
        defer { wake.close() }
        let terminalModes = currentTerminalModes()
        var stderrRedirect = try StderrRedirect(path: options.stderrPath)
        defer { stderrRedirect.restore() }

        let session = try CursesSession(options: options)
        defer { session.end() }
        CrashRestorer.install(
            terminalModes: terminalModes, resetSequence: session.resetSequence(),
            savedStderr: stderrRedirect.savedFD)
        defer { CrashRestorer.uninstall() }

        var loop = EventLoop(
            program: program, session: session, signals: signals, wake: wake,
            frameInterval: options.frameInterval)
        loop.run()
        return loop.stats
    }
}

/// What drawing cost over a session, for `bench/` and `HOIST_UI_STATS`.
public struct FrameStats: Sendable, Hashable {
    public var frames = 0
    /// Time in the program's `render` (building the grid).
    public var renderTime: Duration = .zero
    /// Time diffing against the last frame and writing the changes through ncurses.
    public var drawTime: Duration = .zero
    public var cellsWritten = 0
}
