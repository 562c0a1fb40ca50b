import Dispatch
import Glibc
import TerminalUI
import UploadEngine

/// Live progress rows on stderr, redrawn in place about ten times a second.
/// Other output is written between redraws (`suspendWhile`), so lines never mix.
final class LiveProgress: @unchecked Sendable {
    private let queue = DispatchQueue(label: "hoist.send.progress")
    private var timer: DispatchSourceTimer?
    // Touched only on `queue`.
    private var tasks: [TaskID: TaskSnapshot] = [:]
    private var drawnLines = 0
    private var dirty = false

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.redrawIfNeeded() }
        timer.resume()
        self.timer = timer
    }

    func update(_ snapshot: TaskSnapshot) {
        queue.async {
            self.tasks[snapshot.id] = snapshot
            self.dirty = true
        }
    }

    /// Clears the rows, runs `body` (which prints), and lets the next tick redraw.
    func suspendWhile(_ body: () -> Void) {
        queue.sync {
            clear()
            body()
            dirty = true
        }
    }

    /// Draws the final rows. Updates sent before this call are already queued ahead of it.
    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            clear()
            draw()
            drawnLines = 0
        }
    }

    private func redrawIfNeeded() {
        guard dirty else { return }
        clear()
        draw()
    }

    private func draw() {
        let size = terminalSize()
        let lines = TransferRows.lines(
            for: tasks.values.sorted { $0.id < $1.id }, width: size.columns - 1, maxRows: max(1, min(20, size.rows - 3))
        )
        printError(lines.joined(separator: "\n"))
        drawnLines = lines.count
        dirty = false
    }

    private func clear() {
        guard drawnLines > 0 else { return }
        // Each drawn line ended in a newline: go up to the first row, then clear to the end of the screen.
        let text = "\r\u{1B}[\(drawnLines)A\u{1B}[J"
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        drawnLines = 0
    }

    private func terminalSize() -> (columns: Int, rows: Int) {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return (Int(size.ws_col), Int(size.ws_row))
        }
        return (100, 24)
    }
}
