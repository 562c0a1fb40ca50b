import CNcursesw
import TerminalUI

/// Writes frames into stdscr: after a resize (or the first time) every
/// cell, otherwise only the runs that changed since the last frame. ncurses
/// then diffs stdscr against the screen once more and sends the minimum.
struct CursesRenderer {
    private var previous: Grid?
    private var characters: [wchar_t] = []

    /// The next frame is written in full.
    mutating func invalidate() {
        previous = nil
    }

    /// Returns the cells written.
    @discardableResult
    mutating func draw(_ grid: Grid, on session: CursesSession) -> Int {
        let window = session.window
        var written = 0
        for run in grid.changes(from: previous) {
            for (offset, cell) in run.cells.enumerated() where !cell.isContinuation {
                put(cell, x: run.x + offset, y: run.y, window: window, colors: &session.colors)
                written += 1
            }
        }
        _ = wnoutrefresh(window)
        _ = doupdate()
        previous = grid
        return written
    }

    /// One cell per call, each at its own position: if ncurses' idea of a
    /// character's width ever differs from the grid's, only that cell is off,
    /// not the rest of the row. A cchar_t also keeps combining marks with
    /// their base character.
    private mutating func put(
        _ cell: Cell, x: Int, y: Int, window: UnsafeMutablePointer<WINDOW>, colors: inout ColorPairTable
    ) {
        characters.removeAll(keepingCapacity: true)
        for scalar in cell.text.unicodeScalars {
            guard characters.count < Int(CCHARW_MAX) else { break }
            let value = scalar.value
            // A control character would move the cursor or print as ^X over two cells.
            if value < 0x20 || (0x7F...0x9F).contains(value) {
                if characters.isEmpty { characters.append(wchar_t(UInt8(ascii: "?"))) }
                break
            }
            characters.append(wchar_t(bitPattern: value))
        }
        if characters.isEmpty { characters.append(wchar_t(UInt8(ascii: " "))) }
        characters.append(0)

        let attributes = Self.attributes(of: cell.style)
        let pair = colors.pair(foreground: cell.style.foreground, background: cell.style.background)
        var character = cchar_t()
        if setcchar(&character, characters, attributes, pair, nil) != hoist_OK() {
            // ncurses refuses a sequence whose first character it cannot print.
            let replacement: [wchar_t] = [wchar_t(UInt8(ascii: "?")), 0]
            _ = setcchar(&character, replacement, attributes, pair, nil)
        }
        guard wmove(window, Int32(y), Int32(x)) == hoist_OK() else { return }
        // ERR at the bottom-right cell only means the cursor could not advance; the cell is written.
        _ = wadd_wch(window, &character)
    }

    static func attributes(of style: Style) -> attr_t {
        var attributes = hoist_A_NORMAL()
        if style.bold { attributes |= hoist_A_BOLD() }
        if style.dim { attributes |= hoist_A_DIM() }
        if style.reverse { attributes |= hoist_A_REVERSE() }
        if style.underline { attributes |= hoist_A_UNDERLINE() }
        return attributes
    }
}
