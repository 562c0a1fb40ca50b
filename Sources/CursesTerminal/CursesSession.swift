import CNcursesw
import TerminalUI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One ncurses screen on stdin/stdout, set up for a full-screen program:
/// raw keys, no echo, no cursor, non-blocking reads, colours if any.
final class CursesSession {
    let window: UnsafeMutablePointer<WINDOW>
    private(set) var size: Size
    var colors: ColorPairTable
    let mouseEnabled: Bool
    private let screen: OpaquePointer
    private var ended = false

    init(options: CursesTerminal.Options) throws(CursesTerminalError) {
        hoist_setlocale_from_environment()
        if options.preferUTF8 { Self.preferUTF8Encoding() }
        // Anything print() left in stdio's buffer would land in the middle of the screen.
        fflush(hoist_stdout())
        // newterm, unlike initscr, reports an unknown terminal instead of exiting the process.
        guard let screen = newterm(nil, hoist_stdout(), hoist_stdin()) else {
            throw .unknownTerminal(term: getenv("TERM").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 })
        }
        self.screen = screen
        window = hoist_stdscr()

        // raw, not cbreak: Ctrl-C, Ctrl-Z and Ctrl-S reach the program as keys.
        raw()
        noecho()
        nonl()
        _ = meta(window, true)
        _ = keypad(window, true)
        _ = nodelay(window, true)
        // Writing the bottom-right cell must not scroll the screen.
        _ = scrollok(window, false)
        _ = curs_set(0)
        // A lone Esc should feel instant; 25 ms still joins the bytes of an escape sequence.
        _ = set_escdelay(Int32(clamping: options.escapeDelay.wholeMilliseconds))

        var colorsEnabled = false
        var defaultColors = false
        // NO_COLOR (no-color.org): set and not empty, the screen keeps to
        // bold, dim and reverse, and glyphs (✔ ✘ ‖) say what colours would.
        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        if has_colors(), !noColor {
            colorsEnabled = start_color() == hoist_OK()
            defaultColors = colorsEnabled && use_default_colors() == hoist_OK()
        }
        colors = ColorPairTable(enabled: colorsEnabled, defaultColors: defaultColors)

        mouseEnabled = options.mouse
        if options.mouse {
            // No click resolution: a press is reported at once instead of after 166 ms.
            _ = mouseinterval(0)
            _ = mousemask(hoist_BUTTON1_PRESSED() | hoist_BUTTON4_PRESSED() | hoist_BUTTON5_PRESSED(), nil)
        }
        size = Size(width: Int(hoist_COLS()), height: Int(hoist_LINES()))
    }

    /// With LANG unset or LC_ALL=C, ncurses prints every non-ASCII cell as a
    /// blank. Nearly every terminal today speaks UTF-8, so use C.UTF-8's
    /// character encoding then (it changes nothing else, e.g. not messages).
    private static func preferUTF8Encoding() {
        if let codeset = nl_langinfo(nl_item(CODESET)), isUTF8(String(cString: codeset)) { return }
        _ = setlocale(LC_CTYPE, "C.UTF-8")
    }

    private static func isUTF8(_ codeset: String) -> Bool {
        let name = codeset.lowercased()
        return name == "utf-8" || name == "utf8"
    }

    deinit {
        end()
    }

    /// The terminal's size as the kernel knows it right now.
    static func terminalSize() -> Size? {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else {
            return nil
        }
        return Size(width: Int(window.ws_col), height: Int(window.ws_row))
    }

    /// Resizes ncurses to the terminal's current size and makes the next
    /// update repaint the whole screen, whose contents are now unknown.
    @discardableResult
    func adoptTerminalSize() -> Size {
        let current = Self.terminalSize() ?? size
        _ = resizeterm(Int32(clamping: current.height), Int32(clamping: current.width))
        _ = clearok(hoist_curscr(), true)
        size = Size(width: Int(hoist_COLS()), height: Int(hoist_LINES()))
        return size
    }

    /// The bytes that undo what this session did to the terminal, for a
    /// crash handler that cannot call endwin.
    func resetSequence() -> [UInt8] {
        var bytes: [UInt8] = []
        if mouseEnabled {
            bytes += Array("\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1006l".utf8)
        }
        for capability in ["sgr0", "cnorm", "rmkx", "rmcup"] {
            guard let value = tigetstr(capability), UInt(bitPattern: value) != UInt.max else { continue }
            var pointer = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
            while pointer.pointee != 0 {
                bytes.append(pointer.pointee)
                pointer += 1
            }
        }
        bytes += Array("\r\n".utf8)
        return bytes
    }

    /// Gives the terminal back: modes, cursor, main screen. Safe to call twice.
    func end() {
        guard !ended else { return }
        ended = true
        _ = endwin()
        delscreen(screen)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up, so a wait is never cut short.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let (milliseconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: perMillisecond)
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(milliseconds + (remainder > 0 ? 1 : 0)).overflow
            ? .max : scaled + milliseconds + (remainder > 0 ? 1 : 0)
    }
}
