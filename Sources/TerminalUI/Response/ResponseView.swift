/// Draws a `ResponseDocument` into a pane's inner rectangle: the lines from
/// the scroll position, the cursor line as a highlighted band when the pane has
/// focus, and "cursor/total" at the bottom right when the lines overflow.
/// The frame and title are the caller's.
public enum ResponseView {
    public static let indicatorStyle = Style.fg(.cyan).bolded

    public static func render(
        _ document: ResponseDocument, state: ResponseViewState, into grid: inout Grid, in rect: Rect, focused: Bool
    ) {
        guard !rect.isEmpty else { return }
        grid.fill(rect)
        let lines = document.lines
        let (cursor, scroll) = state.window(lineCount: lines.count, viewHeight: rect.height)
        for row in 0..<rect.height {
            let index = scroll + row
            guard index < lines.count else { break }
            let spans = shifted(lines[index].spans, by: state.column)
            draw(spans, into: &grid, x: rect.x, y: rect.y + row, width: rect.width, clip: rect)
        }
        if focused, cursor >= scroll, cursor < scroll + rect.height, cursor < lines.count {
            ListPanes.highlight(&grid, rect.row(cursor - scroll), focused: true)
        }
        if lines.count > rect.height || state.column > 0 {
            let position = lines.count > rect.height ? " \(cursor + 1)/\(lines.count)" : ""
            let indicator = state.column > 0 ? "\(position) ⇥\(state.column + 1)" : position
            let columns = TextWidth.columns(of: indicator)
            if columns < rect.width {
                grid.put(indicator, x: rect.maxX - columns, y: rect.maxY - 1, style: indicatorStyle, clip: rect)
            }
        }
    }

    /// The spans from column `column` on; a line scrolled past its start
    /// begins with a dim "…" in place of its first shown column.
    static func shifted(_ spans: [ResponseDocument.Span], by column: Int) -> [ResponseDocument.Span] {
        guard column > 0 else { return spans }
        var skip = column + 1
        var out: [ResponseDocument.Span] = [.init("…", Style.plain.dimmed)]
        for span in spans {
            guard skip > 0 else {
                out.append(span)
                continue
            }
            var rest = Substring(span.text)
            while let first = rest.first, skip > 0 {
                skip -= TextWidth.columns(of: first)
                rest = rest.dropFirst()
            }
            // A wide character cut in half leaves a blank column.
            let pad = skip < 0 ? " " : ""
            if skip < 0 { skip = 0 }
            if !rest.isEmpty || !pad.isEmpty { out.append(.init(pad + rest, span.style)) }
        }
        return out.count == 1 ? [] : out
    }

    /// Puts spans one after another; when they do not all fit, the line is
    /// cut by columns and ends in "…" in the style of the span that was cut.
    static func draw(_ spans: [ResponseDocument.Span], into grid: inout Grid, x: Int, y: Int, width: Int, clip: Rect) {
        let widths = spans.map { TextWidth.columns(of: $0.text) }
        let total = widths.reduce(0, +)
        var column = x
        if total <= width {
            for span in spans where !span.text.isEmpty {
                column += grid.put(span.text, x: column, y: y, style: span.style, clip: clip)
            }
            return
        }
        var remaining = width - 1
        for (span, spanWidth) in zip(spans, widths) {
            if spanWidth <= remaining {
                column += grid.put(span.text, x: column, y: y, style: span.style, clip: clip)
                remaining -= spanWidth
            } else {
                grid.put(prefix(span.text, columns: remaining) + "…", x: column, y: y, style: span.style, clip: clip)
                return
            }
        }
    }

    /// The longest start of `text` within `columns` columns; a wide
    /// character that would straddle the limit is left out.
    static func prefix(_ text: String, columns: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let width = TextWidth.columns(of: character)
            if used + width > columns { break }
            out.append(character)
            used += width
        }
        return out
    }
}
