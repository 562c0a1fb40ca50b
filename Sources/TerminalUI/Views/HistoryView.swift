import UploadEngine

/// The history overlay: a list of finished uploads, newest first, and under
/// it the selected one's URL, files, message and answer.
enum HistoryView {
    static func rect(for size: Size) -> Rect {
        Rect(size: size).inset(1).centered(width: 110, height: 44)
    }

    static func listHeight(for size: Size, _ history: HistoryBrowser) -> Int {
        ListDialog.listHeight(of: rect(for: size), subtitle: subtitle(history) != nil)
    }

    /// The filter, as typed or kept, and how many items it keeps.
    private static func subtitle(_ history: HistoryBrowser) -> String? {
        if let input = history.filterInput {
            return "/" + input.text + "▏  \(history.items.count) of \(history.all.count)   Enter keep   Esc clear"
        }
        guard !history.filter.isEmpty else { return nil }
        return "filter: \(history.filter)  \(history.items.count) of \(history.all.count)   / change   Esc clear"
    }

    static func render(_ history: HistoryBrowser, into grid: inout Grid) {
        let dialog = ListDialog(
            title: "History", subtitle: subtitle(history), error: history.error, isLoading: history.isLoading,
            emptyText: history.all.isEmpty ? "no finished uploads yet" : "no upload matches the filter",
            keys:
                "Enter stage its files again and aim the target at its URL   / filter (failed, cancelled, a name)   ↑↓ PgUp PgDn g G move   Esc close"
        )
        dialog.render(
            history, in: rect(for: grid.size), into: &grid,
            row: { item, rect, grid in drawRow(item, into: &grid, y: rect.y, in: rect) },
            detail: { item, rect, grid in drawDetail(item, into: &grid, in: rect) })
    }

    /// `✔ 200 POST  身份证 正面.jpg   176 KiB  35 ms  2026-11-23 08:29:15`
    private static func drawRow(_ item: HistoryItem, into grid: inout Grid, y: Int, in list: Rect) {
        var x = list.x + 1
        let colour: Color = item.outcome == .succeeded ? .green : item.outcome == .failed ? .red : .yellow
        x += grid.put(item.mark + " ", x: x, y: y, style: Style.fg(colour).bolded, clip: list)
        x += grid.put(item.status.map { "\($0) " } ?? "--- ", x: x, y: y, style: Style.fg(colour), clip: list)
        x += grid.put(
            TextWidth.fit(item.method.rawValue, toColumns: 5) + " ", x: x, y: y, style: Style.plain.dimmed, clip: list)
        // Fixed widths, so sizes and times line up from row to row.
        let tail =
            TextWidth.fit(Format.bytes(item.bytesSent), toColumns: 10, alignRight: true) + "  "
            + TextWidth.fit(Format.milliseconds(item.durationMs), toColumns: 7, alignRight: true) + "  "
            + item.displayTime
        let tailWidth = TextWidth.columns(of: tail)
        grid.put(item.name, x: x, y: y, maxWidth: max(1, list.maxX - 2 - tailWidth - x), clip: list)
        grid.put(tail, x: list.maxX - 1 - tailWidth, y: y, style: Style.plain.dimmed, clip: list)
    }

    private static func drawDetail(_ item: HistoryItem, into grid: inout Grid, in rect: Rect) {
        var lines: [ResponseDocument.Line] = [
            .init(spans: [.init(item.method.rawValue + " ", Style.plain.bolded), .init(item.url)])
        ]
        if let problem = item.problem {
            lines.append(.init(spans: [.init("✘ " + ResponseText.displayable(problem), Style.fg(.red).bolded)]))
        }
        for file in item.files {
            let size = file.size.map { "  " + Format.bytes($0) } ?? ""
            lines.append(
                .init(spans: [.init(file.field, Style.fg(.cyan)), .init(" ← " + file.path + size, Style.plain.dimmed)]))
        }
        if let response = item.response {
            var printer = JSONPrettyPrinter(lines: [])
            printer.print(response)
            lines += printer.lines
        }
        for (row, line) in lines.prefix(rect.height).enumerated() {
            var x = rect.x + 1
            for span in line.spans {
                x += grid.put(
                    span.text, x: x, y: rect.y + row, style: span.style, maxWidth: max(0, rect.maxX - x), clip: rect)
            }
        }
    }
}
