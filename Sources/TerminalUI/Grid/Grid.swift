import FoundationEssentials
import UploadEngine

/// One terminal cell: a grapheme, its width and its style. A wide
/// character fills its own cell with width 2 and the next one with a
/// continuation cell (empty text, width 0), as ratatui's buffer does.
/// The first scalar is stored inline and the rare rest (combining marks,
/// emoji sequences) as an index into an interning table, so a cell is
/// plain bits: copying and comparing costs no reference counting, and
/// frames are diffed cell by cell.
public struct Cell: Sendable, Hashable {
    /// The grapheme's first scalar; NUL for a continuation cell.
    public private(set) var scalar: Unicode.Scalar
    /// The grapheme's other scalars, as an index into `GraphemeTable`; 0 for none.
    private var rest: UInt32
    public var width: UInt8
    public var style: Style

    public init(_ text: String, width: UInt8 = 1, style: Style = .plain) {
        let scalars = text.unicodeScalars
        scalar = scalars.first ?? "\0"
        rest = scalars.count > 1 ? GraphemeTable.shared.intern(String(scalars.dropFirst())) : 0
        self.width = width
        self.style = style
    }

    init(scalar: Unicode.Scalar, width: UInt8, style: Style) {
        self.scalar = scalar
        rest = 0
        self.width = width
        self.style = style
    }

    public var text: String {
        guard scalar != "\0" else { return "" }
        return rest == 0 ? String(scalar) : String(scalar) + GraphemeTable.shared.string(rest)
    }

    mutating func append(_ character: Character) {
        rest = GraphemeTable.shared.intern((rest == 0 ? "" : GraphemeTable.shared.string(rest)) + String(character))
    }

    public static let blank = Cell(scalar: " ", width: 1, style: .plain)
    public var isContinuation: Bool { width == 0 }
}

/// The scalars after the first of multi-scalar graphemes (é as e + U+0301,
/// emoji sequences), each stored once for the life of the process. Few
/// distinct ones ever appear on a screen.
final class GraphemeTable: @unchecked Sendable {
    static let shared = GraphemeTable()
    private let lock = ThreadLock()
    private var strings = [""]
    private var indices: [String: UInt32] = ["": 0]

    func intern(_ text: String) -> UInt32 {
        lock.withLock {
            if let index = indices[text] { return index }
            strings.append(text)
            let index = UInt32(strings.count - 1)
            indices[text] = index
            return index
        }
    }

    func string(_ index: UInt32) -> String {
        lock.withLock { strings[Int(index)] }
    }
}

/// A frame: what the screen should show. Views draw into it; the terminal
/// backend diffs it against the previous frame and writes only the changes.
public struct Grid: Sendable, Equatable {
    public let size: Size
    public private(set) var cells: [Cell]

    public init(size: Size, fill: Cell = .blank) {
        self.size = Size(width: max(0, size.width), height: max(0, size.height))
        cells = Array(repeating: fill, count: self.size.width * self.size.height)
    }

    public var width: Int { size.width }
    public var height: Int { size.height }
    public var bounds: Rect { Rect(size: size) }

    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Writes `text` at (x, y) in `style`, clipped to `clip` (default: the
    /// grid) and to `maxWidth` columns. Text that does not fit is cut by
    /// columns and ends in "…". Returns the columns written.
    @discardableResult
    public mutating func put(
        _ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil, clip: Rect? = nil
    ) -> Int {
        let area = clip ?? bounds
        guard y >= area.y, y < area.maxY, y >= 0, y < height, x < area.maxX else { return 0 }
        let limit = min(area.maxX, width, maxWidth.map { x + $0 } ?? Int.max)
        guard limit > x else { return 0 }
        if let written = putSimple(text, x: x, y: y, style: style, limit: limit, areaX: area.x) { return written }
        if text.unicodeScalars.contains(where: { TextWidth.picture(of: $0) != nil }) {
            return put(TextWidth.pictured(text), x: x, y: y, style: style, maxWidth: maxWidth, clip: clip)
        }
        let shown = TextWidth.truncate(text, toColumns: limit - x)
        var column = x
        for character in shown.lazy.map(TextWidth.drawable) {
            let w = TextWidth.columns(of: character)
            if w == 0 {
                // A combining mark with nothing before it is dropped; after a base it joins it.
                if column > x, column - 1 >= 0, column - 1 < width {
                    let back = self[column - 1, y].isContinuation ? column - 2 : column - 1
                    if back >= 0 { self[back, y].append(character) }
                }
                continue
            }
            guard column + w <= limit else { break }
            write(Cell(String(character), width: UInt8(w), style: style), at: column, y: y, areaX: area.x)
            column += w
        }
        return column - x
    }

    /// The common case without grapheme breaking: text whose every scalar is
    /// a grapheme of its own (no combining marks, joiners, selectors, flags
    /// or jamo). Returns nil for other text, which takes the Character path.
    private mutating func putSimple(_ text: String, x: Int, y: Int, style: Style, limit: Int, areaX: Int) -> Int? {
        var total = 0
        for scalar in text.unicodeScalars {
            guard TextWidth.isSingleScalarGrapheme(scalar) else { return nil }
            total += TextWidth.columns(of: scalar)
        }
        let room = limit - x
        // Cut like truncate(): leave a column for "…" when the text does not fit.
        let budget = total > room ? room - 1 : room
        var column = x
        for scalar in text.unicodeScalars {
            let w = TextWidth.columns(of: scalar)
            if w == 0 { continue }
            guard column + w <= x + budget else { break }
            write(Cell(scalar: scalar, width: UInt8(w), style: style), at: column, y: y, areaX: areaX)
            column += w
        }
        if total > room, column < limit {
            write(Cell(scalar: "…", width: 1, style: style), at: column, y: y, areaX: areaX)
            column += 1
        }
        return column - x
    }

    /// Puts one cell (and a continuation after a wide one), clearing any
    /// wide character it cuts in half; cells left of the clip are skipped.
    private mutating func write(_ cell: Cell, at column: Int, y: Int, areaX: Int) {
        guard column >= max(0, areaX) else { return }
        clearWide(at: column, y: y)
        self[column, y] = cell
        if cell.width == 2 {
            clearWide(at: column + 1, y: y)
            self[column + 1, y] = Cell(scalar: "\0", width: 0, style: cell.style)
        }
    }

    /// Fills a rectangle with blanks (or `character`) in `style`.
    public mutating func fill(_ rect: Rect, style: Style = .plain, character: String = " ") {
        let r = rect.clamped(to: bounds)
        guard !r.isEmpty else { return }
        let cell = Cell(character, style: style)
        for y in r.y..<r.maxY {
            // Only the edges can cut a wide character in half.
            clearWide(at: r.x, y: y)
            clearWide(at: r.maxX - 1, y: y)
            let start = y * width
            for x in r.x..<r.maxX { cells[start + x] = cell }
        }
    }

    /// Changes the style of every cell in `rect`, keeping the text.
    public mutating func restyle(_ rect: Rect, _ transform: (inout Style) -> Void) {
        let r = rect.clamped(to: bounds)
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY {
            for x in r.x..<r.maxX { transform(&cells[y * width + x].style) }
        }
    }

    /// The rows as plain text, one String per row, each `width` columns.
    public func lines() -> [String] {
        (0..<height).map { line($0) }
    }

    public func line(_ y: Int) -> String {
        var out = ""
        for x in 0..<width where !self[x, y].isContinuation { out += self[x, y].text }
        return out
    }

    /// Overwriting half of a wide character blanks its other half, so no
    /// orphan continuation or half glyph is left behind.
    private mutating func clearWide(at x: Int, y: Int) {
        guard x >= 0, x < width else { return }
        let cell = self[x, y]
        if cell.isContinuation, x > 0 {
            self[x - 1, y] = Cell(" ", style: self[x - 1, y].style)
        } else if cell.width == 2, x + 1 < width {
            self[x + 1, y] = Cell(" ", style: cell.style)
        }
    }
}

extension Rect {
    func clamped(to outer: Rect) -> Rect {
        let x0 = max(x, outer.x)
        let y0 = max(y, outer.y)
        return Rect(x: x0, y: y0, width: min(maxX, outer.maxX) - x0, height: min(maxY, outer.maxY) - y0)
    }
}
