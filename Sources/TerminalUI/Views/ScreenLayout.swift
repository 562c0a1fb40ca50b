/// Where each part of the screen goes for a terminal size. Wide terminals
/// (120 columns or more) get Files and Fields in a left column beside
/// Tasks over Response; narrower ones stack Files|Fields, Tasks, Response.
public struct ScreenLayout: Sendable, Hashable {
    public var topBar: Rect
    public var hints: Rect
    public var files: Rect
    public var fields: Rect
    public var tasks: Rect
    public var response: Rect

    public init(size: Size) {
        let screen = Rect(size: size)
        let (top, afterTop) = screen.splitTop(1)
        let (body, bottom) = afterTop.splitBottom(1)
        topBar = top
        hints = bottom
        if size.width >= 120 {
            let (left, right) = body.splitLeft(min(56, max(38, size.width * 33 / 100)))
            (files, fields) = left.splitTop(left.height * 55 / 100)
            (tasks, response) = right.splitTop(right.height * 55 / 100)
        } else {
            // A short terminal shrinks the strip first: Tasks keeps its totals
            // and a row (4), Response a row (3), down to the 40×12 minimum.
            let strip = max(3, min(min(10, max(6, body.height / 4)), body.height - 7))
            let (top, rest) = body.splitTop(strip)
            (files, fields) = top.splitLeft(top.width * 55 / 100)
            (tasks, response) = rest.splitTop(min(max(4, rest.height / 2), rest.height - 3))
        }
    }

    public func rect(_ pane: Pane) -> Rect {
        switch pane {
        case .files: return files
        case .fields: return fields
        case .tasks: return tasks
        case .response: return response
        }
    }

    /// Screen rows per list item: a narrow but tall Files pane gives each
    /// file a second row for its type and form field.
    public func rowsPerItem(_ pane: Pane) -> Int {
        pane == .files && files.width < 60 && files.height - 2 >= 8 ? 2 : 1
    }

    /// Items that fit inside a pane's frame (the Tasks pane keeps a row for its totals).
    public func listHeight(_ pane: Pane) -> Int {
        max(1, (rect(pane).height - 2 - (pane == .tasks ? 1 : 0)) / rowsPerItem(pane))
    }
}
