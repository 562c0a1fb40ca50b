/// The history overlay: a list of finished uploads, newest first, and under
/// it the selected one's URL, files, message and answer.
enum HistoryView {
    static func rect(for size: Size) -> Rect {
        Rect(size: size).inset(1).centered(width: 110, height: 44)
    }

    /// List rows: the upper part of the dialog, at most half of it.
    static func listHeight(for size: Size) -> Int {
        max(1, (rect(for: size).height - 3) / 2)
    }

    static func render(_ history: HistoryBrowser, into grid: inout Grid) {
        let rect = rect(for: grid.size)
        Frame.dialog(&grid, rect, title: "History")
        let inner = rect.inset(1)
        guard inner.height >= 4 else { return }
        let list = Rect(x: inner.x, y: inner.y, width: inner.width, height: listHeight(for: grid.size))
        if let error = history.error {
            grid.put("✘ " + error, x: list.x + 1, y: list.y, style: Style.fg(.red), clip: list)
        } else if history.isLoading {
            grid.put("reading…", x: list.x + 1, y: list.y, style: Style.plain.dimmed, clip: list)
        } else if history.items.isEmpty {
            grid.put("no finished uploads yet", x: list.x + 1, y: list.y, style: Style.plain.dimmed, clip: list)
        }
        for row in 0..<list.height {
            let index = history.top + row
            guard index < history.items.count else { break }
            drawRow(history.items[index], into: &grid, y: list.y + row, in: list)
            if index == history.cursor { ListPanes.highlight(&grid, list.row(row), focused: true) }
        }
        if history.items.count > list.height {
            let position = " \(history.cursor + 1)/\(history.items.count) "
            grid.put(position, x: rect.maxX - 2 - TextWidth.columns(of: position), y: rect.y, style: Style.fg(.cyan), clip: rect)
        }
        let ruleY = list.maxY
        grid.put(String(repeating: "─", count: inner.width), x: inner.x, y: ruleY, style: Style.plain.dimmed, clip: inner)
        let detail = Rect(x: inner.x, y: ruleY + 1, width: inner.width, height: inner.maxY - ruleY - 2)
        if let item = history.selected { drawDetail(item, into: &grid, in: detail) }
        grid.put("Enter stage its files again and aim the target at its URL   ↑↓ PgUp PgDn g G move   Esc close",
                 x: inner.x + 1, y: inner.maxY - 1, style: Style.plain.dimmed, clip: inner)
    }

    /// `✔ 200 POST  身份证 正面.jpg   176 KiB  35 ms  2026-11-23 08:29:15`
    private static func drawRow(_ item: HistoryItem, into grid: inout Grid, y: Int, in list: Rect) {
        var x = list.x + 1
        x += grid.put(item.ok ? "✔ " : "✘ ", x: x, y: y, style: Style.fg(item.ok ? .green : .red).bolded, clip: list)
        x += grid.put(item.status.map { "\($0) " } ?? "--- ", x: x, y: y, style: Style.fg(item.ok ? .green : .red), clip: list)
        x += grid.put(item.method.rawValue + "  ", x: x, y: y, style: Style.plain.dimmed, clip: list)
        let tail = "\(Format.bytes(item.bytesSent))  \(item.durationMs) ms  \(item.displayTime)"
        let tailWidth = TextWidth.columns(of: tail)
        grid.put(item.name, x: x, y: y, maxWidth: max(1, list.maxX - 2 - tailWidth - x), clip: list)
        grid.put(tail, x: list.maxX - 1 - tailWidth, y: y, style: Style.plain.dimmed, clip: list)
    }

    private static func drawDetail(_ item: HistoryItem, into grid: inout Grid, in rect: Rect) {
        var lines: [ResponseDocument.Line] = [.init(spans: [.init(item.method.rawValue + " ", Style.plain.bolded), .init(item.url)])]
        if let problem = item.problem {
            lines.append(.init(spans: [.init("✘ " + ResponseText.displayable(problem), Style.fg(.red).bolded)]))
        }
        for file in item.files {
            let size = file.size.map { "  " + Format.bytes($0) } ?? ""
            lines.append(.init(spans: [.init(file.field, Style.fg(.cyan)), .init(" ← " + file.path + size, Style.plain.dimmed)]))
        }
        if let response = item.response {
            var printer = JSONPrettyPrinter(lines: [])
            printer.print(response)
            lines += printer.lines
        }
        for (row, line) in lines.prefix(rect.height).enumerated() {
            var x = rect.x + 1
            for span in line.spans {
                x += grid.put(span.text, x: x, y: rect.y + row, style: span.style, maxWidth: max(0, rect.maxX - x), clip: rect)
            }
        }
    }
}
