import ImagePrep
import UploadPlan

/// The Files and Fields panes: staged files and the text fields and headers sent with them.
enum ListPanes {
    static func files(_ model: AppModel, into grid: inout Grid, in rect: Rect) {
        let focused = model.focus == .files && model.overlay == nil
        let marked = model.files.filter(\.marked).count
        let total = model.files.reduce(Int64(0)) { $0 + $1.size }
        // As the Tasks pane's: where the cursor is, then what is staged.
        let trailer =
            model.files.isEmpty
            ? ""
            : (marked > 0 ? "\(marked) marked · " : "") + position(model.cursor(.files), of: model.files.count) + " · "
                + Format.bytes(total)
        Frame.draw(&grid, rect, title: Pane.files.title, focused: focused, trailer: trailer)
        let inner = rect.inset(1)
        guard !inner.isEmpty else { return }
        if model.files.isEmpty {
            grid.put(
                "no files yet: press a to add some", x: inner.x + 1, y: inner.y, style: Style.plain.dimmed, clip: inner)
            return
        }
        let layout = ScreenLayout(size: model.size)
        let twoRows = layout.rowsPerItem(.files) == 2
        // One row: name, size, then type and field as width allows. Two rows: type and field below.
        let sizeWidth = 9
        let fieldWidth = twoRows || inner.width < 64 ? 0 : min(14, inner.width / 6)
        let top = model.scroll[.files, default: 0]
        let shown = Array(model.files.dropFirst(top).prefix(layout.listHeight(.files)))
        let details = shown.map { imageDetail($0, model) }
        // An image's sizes before and after are worth more columns than a type; the name keeps 16.
        let widestImage = details.compactMap { $0.map(TextWidth.columns(of:)) }.max() ?? 0
        let typeWidth =
            twoRows || inner.width < 40
            ? 0
            : max(
                min(24, max(10, (inner.width - 26) / 2)),
                min(widestImage, inner.width - 5 - sizeWidth - 16 - (fieldWidth > 0 ? fieldWidth + 1 : 0)))
        let nameWidth =
            inner.width - 3 - sizeWidth - (typeWidth > 0 ? typeWidth + 1 : 0) - (fieldWidth > 0 ? fieldWidth + 1 : 0)
        for (item, file) in shown.enumerated() {
            let index = top + item
            let row = item * (twoRows ? 2 : 1)
            let y = inner.y + row
            var x = inner.x
            x += grid.put(file.marked ? "● " : "  ", x: x, y: y, style: Style.fg(.yellow).bolded, clip: inner)
            x +=
                grid.put(
                    TextWidth.fit(file.displayName, toColumns: nameWidth), x: x, y: y,
                    style: file.marked ? Style.plain.bolded : .plain, clip: inner) + 1
            x +=
                grid.put(
                    TextWidth.fit(Format.bytes(file.size), toColumns: sizeWidth, alignRight: true), x: x, y: y,
                    clip: inner) + 1
            let image = details[item]
            if typeWidth > 0 {
                x +=
                    grid.put(
                        TextWidth.fit(image ?? file.effectiveType, toColumns: typeWidth), x: x, y: y,
                        style: image == nil ? Style.plain.dimmed : Style.fg(.magenta), clip: inner) + 1
            }
            if fieldWidth > 0 {
                grid.put(
                    TextWidth.fit("→ " + file.fieldName, toColumns: fieldWidth), x: x, y: y, style: Style.fg(.cyan),
                    clip: inner)
            }
            if twoRows {
                let detail = inner.x + 4
                // An image's pixels say more than its type, which its name already tells.
                let used =
                    image.map { grid.put($0, x: detail, y: y + 1, style: Style.fg(.magenta), clip: inner) }
                    ?? grid.put(
                        file.effectiveType, x: detail, y: y + 1, style: Style.plain.dimmed, maxWidth: inner.width / 2,
                        clip: inner)
                grid.put("  → field " + file.fieldName, x: detail + used, y: y + 1, style: Style.fg(.cyan), clip: inner)
            }
            if index == model.cursor(.files) {
                for r in row..<(row + (twoRows ? 2 : 1)) { highlight(&grid, inner.row(r), focused: focused) }
            }
        }
    }

    /// An image's pixels, and what preparing makes of them: `4032×3024 →
    /// 2048×1536` by the settings, then `→ 2048×1536 412 KiB` once prepared.
    static func imageDetail(_ file: StagedFile, _ model: AppModel) -> String? {
        guard let pixels = file.pixels else { return nil }
        if let done = model.preparedImages[file.path] {
            return "\(done.originalSize) → \(done.size) \(Format.bytes(done.bytes))"
        }
        guard let settings = model.imageSettings(for: file) else {
            return file.images == .asIs ? "\(pixels) as is" : pixels.description
        }
        // A file's own settings are told beside it; the target's are in the top bar.
        let own = file.images == .likeTarget ? "" : Bars.imageSummary(settings, withDimension: false)
        return "\(pixels) → \(settings.fitted(pixels))" + (own.isEmpty ? "" : " " + own)
    }

    static func fields(_ model: AppModel, into grid: inout Grid, in rect: Rect) {
        let focused = model.focus == .fields && model.overlay == nil
        Frame.draw(
            &grid, rect, title: Pane.fields.title, focused: focused,
            trailer: model.entries.isEmpty ? "" : "\(model.entries.count)")
        let inner = rect.inset(1)
        guard !inner.isEmpty else { return }
        if model.entries.isEmpty {
            grid.put(
                "press f to add a field, H a header", x: inner.x + 1, y: inner.y, style: Style.plain.dimmed, clip: inner
            )
            return
        }
        let top = model.scroll[.fields, default: 0]
        for row in 0..<inner.height {
            let index = top + row
            guard index < model.entries.count else { break }
            let entry = model.entries[index]
            let y = inner.y + row
            var x = inner.x + 1
            let isHeader = entry.kind == .header
            x += grid.put(isHeader ? "H " : "F ", x: x, y: y, style: Style.plain.dimmed, clip: inner)
            let nameWidth = min(TextWidth.columns(of: entry.name), max(6, inner.width / 2))
            x += grid.put(
                TextWidth.truncate(entry.name, toColumns: nameWidth), x: x, y: y,
                style: Style.fg(isHeader ? .magenta : .cyan), clip: inner)
            x += grid.put(isHeader ? ": " : " = ", x: x, y: y, style: Style.plain.dimmed, clip: inner)
            grid.put(entry.displayValue, x: x, y: y, style: entry.isSecret ? Style.fg(.yellow) : .plain, clip: inner)
            if index == model.cursor(.fields) { highlight(&grid, inner.row(row), focused: focused) }
        }
    }

    /// The selected row: a blue band in the focused pane (colours inside it
    /// stay readable, unlike reverse video), bold otherwise.
    static func highlight(_ grid: inout Grid, _ row: Rect, focused: Bool) {
        grid.restyle(row) { style in
            if focused {
                style.background = .blue
                if style.foreground == .blue { style.foreground = .white }
                style.dim = false
            } else {
                style.bold = true
            }
        }
    }
}
