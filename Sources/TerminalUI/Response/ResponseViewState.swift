import UploadEngine

/// What the user has done to the Response pane: folded nodes, cursor,
/// scroll, and how the body is shown. Every change is a pure mutating
/// method; those that change which lines exist take the current document,
/// rebuild it, and keep the cursor on the same node (or its nearest visible
/// ancestor). Scroll is kept so the cursor stays visible.
public struct ResponseViewState: Sendable, Hashable {
    public enum Mode: Sendable, Hashable {
        /// The JSON body as a foldable tree.
        case tree
        /// The body as text.
        case raw
    }

    /// Paths of collapsed JSON containers ("$", "$.data", "$.files[0]").
    public var collapsed: Set<String>
    /// The selected line (an index into `ResponseDocument.lines`).
    public var cursor: Int
    /// The first line shown.
    public var scroll: Int
    public var showHeaders: Bool
    /// The request as it went (`x`): method, URL, headers, parts.
    public var showRequest = false
    public var mode: Mode
    /// Raw mode shows JSON pretty-printed (2-space indent) instead of as received.
    public var pretty: Bool
    /// Secrets in the answer (echoed ones, values of secret keys) shown, not masked.
    public var revealsSecrets = false
    /// The first column shown: long lines scroll sideways (`<` `>`, and
    /// ← → in raw mode, where there is nothing to fold).
    public var column = 0
    /// Columns one sideways step moves.
    public static let columnStep = 20
    /// The text last searched for with `/`; `n` and `N` find it again.
    public var search = ""
    /// The search while it is typed.
    public var searchInput: TextInput?
    /// The match the cursor is on, of how many; nil when the search found none.
    public var searchHit: SearchHit?

    public init(
        collapsed: Set<String> = [], cursor: Int = 0, scroll: Int = 0,
        showHeaders: Bool = false, mode: Mode = .tree, pretty: Bool = true
    ) {
        self.collapsed = collapsed
        self.cursor = cursor
        self.scroll = scroll
        self.showHeaders = showHeaders
        self.mode = mode
        self.pretty = pretty
    }

    // MARK: - Window

    /// The cursor and first line for a document of `lineCount` lines in a
    /// view of `viewHeight` rows: the cursor inside the document, the view
    /// full where the document allows, and the cursor on screen.
    public func window(lineCount: Int, viewHeight: Int) -> (cursor: Int, scroll: Int) {
        let height = max(1, viewHeight)
        let cursor = min(max(0, self.cursor), max(0, lineCount - 1))
        var scroll = min(max(0, self.scroll), max(0, lineCount - height))
        if cursor < scroll { scroll = cursor }
        if cursor >= scroll + height { scroll = cursor - height + 1 }
        return (cursor, scroll)
    }

    /// Clamps `cursor` and `scroll` as `window` does.
    public mutating func clamp(lineCount: Int, viewHeight: Int) {
        (cursor, scroll) = window(lineCount: lineCount, viewHeight: viewHeight)
    }

    // MARK: - Moving

    /// Moves the cursor by `delta` lines (negative is up), scrolling only as
    /// far as needed to keep it visible.
    public mutating func moveCursor(by delta: Int, lineCount: Int, viewHeight: Int) {
        clamp(lineCount: lineCount, viewHeight: viewHeight)
        cursor += delta
        clamp(lineCount: lineCount, viewHeight: viewHeight)
    }

    public mutating func moveToTop(lineCount: Int, viewHeight: Int) {
        cursor = 0
        clamp(lineCount: lineCount, viewHeight: viewHeight)
    }

    public mutating func moveToBottom(lineCount: Int, viewHeight: Int) {
        cursor = lineCount - 1
        clamp(lineCount: lineCount, viewHeight: viewHeight)
    }

    /// A page up: the view and the cursor move together by a page less one line.
    public mutating func pageUp(lineCount: Int, viewHeight: Int) {
        page(by: -max(1, viewHeight - 1), lineCount: lineCount, viewHeight: viewHeight)
    }

    /// A page down: the view and the cursor move together by a page less one line.
    public mutating func pageDown(lineCount: Int, viewHeight: Int) {
        page(by: max(1, viewHeight - 1), lineCount: lineCount, viewHeight: viewHeight)
    }

    private mutating func page(by delta: Int, lineCount: Int, viewHeight: Int) {
        // At either end the view stops and the cursor goes on towards the first or last line.
        clamp(lineCount: lineCount, viewHeight: viewHeight)
        cursor += delta
        scroll = min(max(0, scroll + delta), max(0, lineCount - max(1, viewHeight)))
        clamp(lineCount: lineCount, viewHeight: viewHeight)
    }

    /// Puts the cursor on the line shown at `row` of the view (a click).
    public mutating func select(row: Int, lineCount: Int, viewHeight: Int) {
        clamp(lineCount: lineCount, viewHeight: viewHeight)
        guard row >= 0, row < viewHeight, scroll + row < lineCount else { return }
        cursor = scroll + row
    }

    /// Scrolls sideways by `delta` columns, no further than shows the
    /// widest line's last column (after the "…" the shifted view starts with).
    public mutating func shift(by delta: Int, in document: ResponseDocument) {
        let widest = document.lines.lazy.map { TextWidth.columns(of: $0.text) }.max() ?? 0
        column = min(max(0, column + delta), max(0, widest - 2))
    }

    // MARK: - Folding

    /// Expands or collapses the container at the cursor.
    public mutating func toggle(in document: ResponseDocument, viewHeight: Int) {
        guard let line = cursorLine(in: document), line.isContainer, let path = line.path else { return }
        if collapsed.contains(path) { collapsed.remove(path) } else { collapsed.insert(path) }
        rebuild(from: document, viewHeight: viewHeight)
    }

    /// Collapses the expanded container at the cursor; on a leaf or a
    /// collapsed container, moves to the parent node instead.
    public mutating func collapse(in document: ResponseDocument, viewHeight: Int) {
        guard let line = cursorLine(in: document), let path = line.path else { return }
        if line.isContainer, !line.isCollapsed {
            collapsed.insert(path)
            rebuild(from: document, viewHeight: viewHeight)
        } else if let parent = line.parent {
            cursor = parent
            clamp(lineCount: document.lines.count, viewHeight: viewHeight)
        }
    }

    /// Expands the collapsed container at the cursor; on an expanded one,
    /// moves to its first child.
    public mutating func expand(in document: ResponseDocument, viewHeight: Int) {
        guard let line = cursorLine(in: document), line.isContainer, let path = line.path else { return }
        if line.isCollapsed {
            collapsed.remove(path)
            rebuild(from: document, viewHeight: viewHeight)
        } else {
            moveCursor(by: 1, lineCount: document.lines.count, viewHeight: viewHeight)
        }
    }

    /// Expands every node.
    public mutating func expandAll(in document: ResponseDocument, viewHeight: Int) {
        collapsed = []
        rebuild(from: document, viewHeight: viewHeight)
    }

    /// Collapses every container except the root, so the top level shows
    /// as one line per member. The cursor moves to the nearest visible node.
    public mutating func collapseAll(in document: ResponseDocument, viewHeight: Int) {
        guard let json = document.task?.response?.json else { return }
        collapsed = JSONNodePath.containers(in: json)
        rebuild(from: document, viewHeight: viewHeight)
    }

    // MARK: - Showing

    public mutating func toggleHeaders(in document: ResponseDocument, viewHeight: Int) {
        showHeaders.toggle()
        rebuild(from: document, viewHeight: viewHeight)
    }

    public mutating func toggleRequest(in document: ResponseDocument, viewHeight: Int) {
        showRequest.toggle()
        rebuild(from: document, viewHeight: viewHeight)
    }

    /// Switches between the JSON tree and the raw body.
    public mutating func toggleRaw(in document: ResponseDocument, viewHeight: Int) {
        mode = mode == .tree ? .raw : .tree
        rebuild(from: document, viewHeight: viewHeight)
    }

    /// Switches the raw body between pretty-printed and as received.
    public mutating func togglePretty(in document: ResponseDocument, viewHeight: Int) {
        pretty.toggle()
        rebuild(from: document, viewHeight: viewHeight)
    }

    /// Shows or masks the secrets in the answer.
    public mutating func toggleSecrets(in document: ResponseDocument, viewHeight: Int) {
        revealsSecrets.toggle()
        rebuild(from: document, viewHeight: viewHeight)
    }

    // MARK: - Keys

    /// Handles a key of the focused Response pane; false when it is not one
    /// of the pane's keys. `document` is what the pane shows now and
    /// `viewHeight` the rows it has.
    ///
    /// ↑↓/j k move, PgUp PgDn page, Home End/g G first and last line,
    /// ←/h collapse or go to the parent, →/l expand or go to the first
    /// child (in raw mode they scroll sideways), < > scroll sideways, 0 back
    /// to the first column, Enter/Space toggle, E/C expand/collapse all, i headers, x the request,
    /// w raw/tree, P pretty/as received, s shows or masks secrets, the
    /// wheel scrolls 3 lines.
    @discardableResult
    public mutating func handle(_ key: Key, document: ResponseDocument, viewHeight: Int) -> Bool {
        let count = document.lines.count
        switch key {
        case .up, .character("k"): moveCursor(by: -1, lineCount: count, viewHeight: viewHeight)
        case .down, .character("j"): moveCursor(by: 1, lineCount: count, viewHeight: viewHeight)
        case .wheel(let up, _, _): moveCursor(by: up ? -3 : 3, lineCount: count, viewHeight: viewHeight)
        case .pageUp: pageUp(lineCount: count, viewHeight: viewHeight)
        case .pageDown: pageDown(lineCount: count, viewHeight: viewHeight)
        case .home, .character("g"): moveToTop(lineCount: count, viewHeight: viewHeight)
        case .end, .character("G"): moveToBottom(lineCount: count, viewHeight: viewHeight)
        case .left, .character("h"):
            if mode == .raw {
                shift(by: -Self.columnStep, in: document)
            } else {
                collapse(in: document, viewHeight: viewHeight)
            }
        case .right, .character("l"):
            if mode == .raw {
                shift(by: Self.columnStep, in: document)
            } else {
                expand(in: document, viewHeight: viewHeight)
            }
        case .character("<"): shift(by: -Self.columnStep, in: document)
        case .character(">"): shift(by: Self.columnStep, in: document)
        case .character("0"): column = 0
        case .enter, .character(" "): toggle(in: document, viewHeight: viewHeight)
        case .character("E"): expandAll(in: document, viewHeight: viewHeight)
        case .character("C"): collapseAll(in: document, viewHeight: viewHeight)
        case .character("i"): toggleHeaders(in: document, viewHeight: viewHeight)
        case .character("x"): toggleRequest(in: document, viewHeight: viewHeight)
        case .character("w"): toggleRaw(in: document, viewHeight: viewHeight)
        case .character("P"): togglePretty(in: document, viewHeight: viewHeight)
        case .character("s"): toggleSecrets(in: document, viewHeight: viewHeight)
        default: return false
        }
        return true
    }

    // MARK: - Keeping the cursor in place

    private func cursorLine(in document: ResponseDocument) -> ResponseDocument.Line? {
        let index = window(lineCount: document.lines.count, viewHeight: 1).cursor
        return document.lines.indices.contains(index) ? document.lines[index] : nil
    }

    /// Where the cursor was in `old`: a node (with its ancestors, nearest
    /// first, in case it is now hidden), a line of the body, or a line above it.
    private enum Anchor {
        case nodes([String])
        case body(offset: Int)
        case line(Int)
    }

    private func anchor(in document: ResponseDocument, cursor: Int) -> Anchor {
        guard document.lines.indices.contains(cursor) else { return .line(cursor) }
        if document.lines[cursor].path != nil {
            var paths: [String] = []
            var index: Int? = cursor
            while let current = index {
                if let path = document.lines[current].path { paths.append(path) }
                index = document.lines[current].parent
            }
            return .nodes(paths)
        }
        return cursor >= document.bodyStart ? .body(offset: cursor - document.bodyStart) : .line(cursor)
    }

    /// Rebuilds the document after a change to this state and puts the
    /// cursor back on the node or line it was on.
    private mutating func rebuild(from old: ResponseDocument, viewHeight: Int) {
        let (oldCursor, oldScroll) = window(lineCount: old.lines.count, viewHeight: viewHeight)
        let anchor = anchor(in: old, cursor: oldCursor)
        let new = ResponseDocument(task: old.task, state: self, secretNames: old.secretNames)
        switch anchor {
        case .nodes(let paths):
            cursor = paths.lazy.compactMap { new.index(ofPath: $0) }.first ?? new.bodyStart
        case .body(let offset):
            cursor = new.bodyStart + offset
        case .line(let index):
            cursor = index
        }
        // At the top the view stays there (so headers appear); further down
        // the cursor keeps its row.
        scroll = oldScroll == 0 ? 0 : cursor - (oldCursor - oldScroll)
        clamp(lineCount: new.lines.count, viewHeight: viewHeight)
    }
}
