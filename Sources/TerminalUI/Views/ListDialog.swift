/// A dialog made of a scrolling list over a detail area, as the history
/// and the profile picker are: frame and title, an optional subtitle line,
/// the list (or why it is empty), the cursor's position, a rule, the
/// selected item's details and a line of keys at the bottom.
struct ListDialog {
    var title: String
    var subtitle: String?
    var error: String?
    var isLoading: Bool
    var emptyText: String
    var keys: String

    /// The list's rows: the upper half of the dialog, less the subtitle.
    static func listHeight(of rect: Rect, subtitle: Bool) -> Int {
        max(1, (rect.height - 3 - (subtitle ? 1 : 0)) / 2)
    }

    func render<List: ScrollingList>(
        _ list: List, in rect: Rect, into grid: inout Grid,
        row drawRow: (List.Item, Rect, inout Grid) -> Void,
        detail drawDetail: (List.Item, Rect, inout Grid) -> Void
    ) {
        Frame.dialog(&grid, rect, title: title)
        let inner = rect.inset(1)
        guard inner.height >= 4 else { return }
        var top = inner.y
        if let subtitle {
            grid.put(subtitle, x: inner.x + 1, y: top, style: Style.plain.dimmed, clip: inner)
            top += 1
        }
        let rows = Rect(
            x: inner.x, y: top, width: inner.width, height: Self.listHeight(of: rect, subtitle: subtitle != nil))
        if let error {
            for (row, line) in ResponseText.lines(error).prefix(rows.height).enumerated() {
                grid.put(
                    (row == 0 ? "✘ " : "  ") + line, x: rows.x + 1, y: rows.y + row, style: Style.fg(.red), clip: rows)
            }
        } else if isLoading || list.items.isEmpty {
            grid.put(
                isLoading ? "reading…" : emptyText, x: rows.x + 1, y: rows.y, style: Style.plain.dimmed, clip: rows)
        }
        for row in 0..<rows.height {
            let index = list.top + row
            guard index < list.items.count else { break }
            drawRow(list.items[index], rows.row(row), &grid)
            if index == list.cursor { ListPanes.highlight(&grid, rows.row(row), focused: true) }
        }
        if list.items.count > rows.height {
            let position = " \(list.cursor + 1)/\(list.items.count) "
            grid.put(
                position, x: rect.maxX - 2 - TextWidth.columns(of: position), y: rect.y, style: Style.fg(.cyan),
                clip: rect)
        }
        grid.put(
            String(repeating: "─", count: inner.width), x: inner.x, y: rows.maxY, style: Style.plain.dimmed, clip: inner
        )
        let detail = Rect(x: inner.x, y: rows.maxY + 1, width: inner.width, height: inner.maxY - rows.maxY - 2)
        if let item = list.selected { drawDetail(item, detail, &grid) }
        grid.put(keys, x: inner.x + 1, y: inner.maxY - 1, style: Style.plain.dimmed, clip: inner)
    }
}
