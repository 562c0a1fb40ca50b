/// A key press, decoded by the terminal backend from `get_wch`.
public enum Key: Sendable, Hashable {
    /// A printable character, UTF-8 decoded (e.g. "a", "身", "?").
    case character(Character)
    /// Ctrl plus a letter, e.g. `.control("u")` for Ctrl-U.
    case control(Character)
    case enter, tab, backTab, escape, backspace, delete
    case up, down, left, right, home, end, pageUp, pageDown
    case function(Int)
    /// A left click at a screen cell.
    case click(x: Int, y: Int)
    /// The mouse wheel, `up` when scrolled away from the user.
    case wheel(up: Bool, x: Int, y: Int)
}

/// What the terminal loop hands to a program.
public enum TerminalInput: Sendable, Hashable {
    case key(Key)
    /// The terminal was resized; the next frame is drawn in full.
    case resize(Size)
    /// Something called the program's wake function (e.g. engine events arrived).
    case wake
    /// The program's tick interval passed.
    case tick
    /// SIGINT, SIGTERM or SIGHUP arrived.
    case signal(Int32)
}

/// A full-screen program as the terminal loop (CursesTerminal) runs it,
/// in the Bubble Tea manner: inputs in, frames out, on one thread.
public protocol TerminalProgram: AnyObject {
    /// Called once before the first frame. `wake` may be called from any
    /// thread; the loop then delivers `.wake` on its own thread.
    func start(size: Size, wake: @escaping @Sendable () -> Void)
    /// Handles one input. Return false to end the loop.
    func handle(_ input: TerminalInput) -> Bool
    /// True when the screen should be drawn again. The loop draws at most
    /// about 30 frames a second, however often this turns true.
    var needsRedraw: Bool { get }
    /// Draws the whole frame into a blank grid. Called by the loop, which
    /// then writes only the cells that changed.
    func render(into grid: inout Grid)
    /// How often `.tick` is wanted (e.g. while uploads run, to age ETAs),
    /// or nil to sleep until input arrives.
    var tickInterval: Duration? { get }
}
