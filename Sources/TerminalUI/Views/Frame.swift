/// Rounded box frames around panes and overlays.
enum Frame {
    static func draw(_ grid: inout Grid, _ rect: Rect, title: String, focused: Bool, trailer: String = "") {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let border = focused ? Style.fg(.cyan).bolded : Style.plain.dimmed
        let right = rect.maxX - 1
        let bottom = rect.maxY - 1
        grid.put("╭", x: rect.x, y: rect.y, style: border)
        grid.put("╮", x: right, y: rect.y, style: border)
        grid.put("╰", x: rect.x, y: bottom, style: border)
        grid.put("╯", x: right, y: bottom, style: border)
        if rect.width > 2 {
            let line = String(repeating: "─", count: rect.width - 2)
            grid.put(line, x: rect.x + 1, y: rect.y, style: border)
            grid.put(line, x: rect.x + 1, y: bottom, style: border)
        }
        for y in (rect.y + 1)..<bottom {
            grid.put("│", x: rect.x, y: y, style: border)
            grid.put("│", x: right, y: y, style: border)
        }
        let titleStyle = focused ? Style.fg(.cyan).bolded : Style.plain.bolded
        let used = grid.put(" \(title) ", x: rect.x + 2, y: rect.y, style: titleStyle, maxWidth: rect.width - 4)
        if !trailer.isEmpty {
            let room = rect.width - 4 - used - 1
            let text = TextWidth.truncate(" \(trailer) ", toColumns: room)
            grid.put(text, x: right - 1 - TextWidth.columns(of: text), y: rect.y, style: border)
        }
    }

    /// Clears a rectangle and frames it: for overlays drawn over the panes.
    static func dialog(_ grid: inout Grid, _ rect: Rect, title: String) {
        grid.fill(rect)
        draw(&grid, rect, title: title, focused: true)
    }
}

/// A scroll position like "12/340", for frames of long lists.
func position(_ cursor: Int, of count: Int) -> String {
    count == 0 ? "" : "\(cursor + 1)/\(count)"
}
