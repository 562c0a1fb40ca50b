import UploadEngine

/// The profile picker overlay: one row per profile with its method and URL
/// as written in the file, and under it the selected one's fields and headers.
enum ProfilesView {
    static func rect(for size: Size) -> Rect {
        Rect(size: size).inset(1).centered(width: 100, height: 24)
    }

    static func listHeight(for size: Size) -> Int {
        max(1, (rect(for: size).height - 4) / 2)
    }

    static func render(_ picker: ProfilePicker, into grid: inout Grid) {
        let rect = rect(for: grid.size)
        Frame.dialog(&grid, rect, title: "Profiles")
        let inner = rect.inset(1)
        guard inner.height >= 4 else { return }
        grid.put(picker.path, x: inner.x + 1, y: inner.y, style: Style.plain.dimmed, clip: inner)
        let list = Rect(x: inner.x, y: inner.y + 1, width: inner.width, height: listHeight(for: grid.size))
        if let error = picker.error {
            for (row, line) in ResponseText.lines(error).prefix(list.height).enumerated() {
                grid.put((row == 0 ? "✘ " : "  ") + line, x: list.x + 1, y: list.y + row, style: Style.fg(.red), clip: list)
            }
        } else if picker.isLoading {
            grid.put("reading…", x: list.x + 1, y: list.y, style: Style.plain.dimmed, clip: list)
        } else if picker.items.isEmpty {
            grid.put("no profiles yet: S saves the current target, fields and headers as one", x: list.x + 1, y: list.y, style: Style.plain.dimmed, clip: list)
        }
        for row in 0..<list.height {
            let index = picker.top + row
            guard index < picker.items.count else { break }
            let item = picker.items[index]
            var x = list.x + 1
            x += grid.put(TextWidth.fit(item.name, toColumns: 18) + " ", x: x, y: list.y + row, style: Style.fg(.cyan).bolded, clip: list)
            x += grid.put((item.method ?? "POST") + " ", x: x, y: list.y + row, style: Style.plain.dimmed, clip: list)
            grid.put(item.url.map(Secrets.displayURL) ?? "(no URL)", x: x, y: list.y + row, maxWidth: max(0, list.maxX - x - 1), clip: list)
            if index == picker.cursor { ListPanes.highlight(&grid, list.row(row), focused: true) }
        }
        let ruleY = list.maxY
        grid.put(String(repeating: "─", count: inner.width), x: inner.x, y: ruleY, style: Style.plain.dimmed, clip: inner)
        if let item = picker.selected {
            var lines: [(String, String)] = item.fields.map { ("field", $0) } + item.headers.map { ("header", $0) }
            if lines.isEmpty { lines = [("", "no fields or headers")] }
            for (row, (kind, name)) in lines.prefix(max(0, inner.maxY - ruleY - 2)).enumerated() {
                let y = ruleY + 1 + row
                let x = inner.x + 1 + grid.put(TextWidth.fit(kind, toColumns: 7) + " ", x: inner.x + 1, y: y, style: Style.plain.dimmed, clip: inner)
                grid.put(name, x: x, y: y, style: Style.fg(.cyan), clip: inner)
            }
        }
        grid.put("Enter load: target, fields and headers   ↑↓ move   Esc close", x: inner.x + 1, y: inner.maxY - 1, style: Style.plain.dimmed, clip: inner)
    }
}
