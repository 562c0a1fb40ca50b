/// `/` in the Response pane: text looked for in every line of the answer,
/// inside collapsed nodes too (issue 37 #11: a 7,650-line answer had no
/// search). A match inside a collapsed node expands its ancestors.
extension ResponseViewState {
    /// Where a search stands: which match the cursor is on, of how many.
    public struct SearchHit: Sendable, Hashable {
        public var match: Int
        public var count: Int
    }

    public enum SearchDirection: Sendable {
        /// From the cursor's line on: while the text is typed.
        case here
        case next
        case previous
    }

    /// Moves the cursor to a line holding `text` (any case) in `direction`,
    /// wrapping at the ends. False, with nothing moved, when no line holds it.
    @discardableResult
    public mutating func find(
        _ text: String, _ direction: SearchDirection, in document: ResponseDocument, viewHeight: Int
    ) -> Bool {
        search = text
        let needle = text.lowercased()
        guard !needle.isEmpty else {
            searchHit = nil
            return true
        }
        // Every node expanded: a match may be where the tree is folded.
        var open = self
        open.collapsed = []
        let full = ResponseDocument(task: document.task, state: open, secretNames: document.secretNames)
        let matches = full.lines.indices.filter {
            full.lines[$0].spans.lazy.map(\.text).joined().lowercased().contains(needle)
        }
        guard !matches.isEmpty else {
            searchHit = nil
            return false
        }
        let here = position(in: full, of: document)
        let chosen: Int
        switch direction {
        case .here: chosen = matches.firstIndex { $0 >= here } ?? 0
        case .next: chosen = matches.firstIndex { $0 > here } ?? 0
        case .previous: chosen = matches.lastIndex { $0 < here } ?? matches.count - 1
        }
        let target = matches[chosen]
        // Its line's node, or the nearest one above it, and every ancestor open.
        var node: String?
        var index: Int? = target
        while let current = index {
            if let path = full.lines[current].path {
                if node == nil { node = path } else { collapsed.remove(path) }
            }
            index = full.lines[current].parent
        }
        let new = ResponseDocument(task: document.task, state: self, secretNames: document.secretNames)
        if target < full.bodyStart {
            cursor = target
        } else if let node, full.lines[target].path == node {
            cursor = new.index(ofPath: node) ?? new.bodyStart
        } else {
            cursor = new.bodyStart + (target - full.bodyStart)
        }
        // The match a third down the view, not on its last row.
        scroll = cursor - max(0, viewHeight / 3)
        clamp(lineCount: new.lines.count, viewHeight: viewHeight)
        searchHit = SearchHit(match: chosen + 1, count: matches.count)
        return true
    }

    /// The cursor's line as an index into `full`, the same answer with every node open.
    private func position(in full: ResponseDocument, of document: ResponseDocument) -> Int {
        let at = window(lineCount: document.lines.count, viewHeight: 1).cursor
        guard document.lines.indices.contains(at) else { return 0 }
        if let path = document.lines[at].path, let index = full.index(ofPath: path) { return index }
        return at < document.bodyStart ? at : full.bodyStart + (at - document.bodyStart)
    }
}
