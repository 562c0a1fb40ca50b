import UploadEngine

/// The profile picker overlay: one row per profile with its method and URL
/// as written in the file, and under it the selected one's fields and headers.
enum ProfilesView {
    static func rect(for size: Size) -> Rect {
        Rect(size: size).inset(1).centered(width: 100, height: 24)
    }

    static func listHeight(for size: Size) -> Int {
        ListDialog.listHeight(of: rect(for: size), subtitle: true)
    }

    static func render(_ picker: ProfilePicker, into grid: inout Grid) {
        let dialog = ListDialog(
            title: "Profiles", subtitle: picker.path, error: picker.error, isLoading: picker.isLoading,
            emptyText: "no profiles yet: S saves the current target, fields and headers as one",
            keys: "Enter load: target, fields and headers   ↑↓ move   Esc close")
        dialog.render(picker, in: rect(for: grid.size), into: &grid, row: drawRow, detail: drawDetail)
    }

    /// `ocr                POST https://api.example.com/ocr?token=••••••`
    private static func drawRow(_ item: ProfileSummary, in rect: Rect, into grid: inout Grid) {
        var x = rect.x + 1
        x += grid.put(
            TextWidth.fit(item.name, toColumns: 18) + " ", x: x, y: rect.y, style: Style.fg(.cyan).bolded, clip: rect)
        x += grid.put((item.method ?? "POST") + " ", x: x, y: rect.y, style: Style.plain.dimmed, clip: rect)
        grid.put(
            item.url.map(Secrets.displayURL) ?? "(no URL)", x: x, y: rect.y, maxWidth: max(0, rect.maxX - x - 1),
            clip: rect)
    }

    /// The selected profile's fields and headers, by name.
    private static func drawDetail(_ item: ProfileSummary, in rect: Rect, into grid: inout Grid) {
        let lines = item.fields.map { ("field", $0) } + item.headers.map { ("header", $0) }
        if lines.isEmpty {
            grid.put("no fields or headers", x: rect.x + 1, y: rect.y, style: Style.plain.dimmed, clip: rect)
        }
        for (row, (kind, name)) in lines.prefix(rect.height).enumerated() {
            let x =
                rect.x + 1
                + grid.put(
                    TextWidth.fit(kind, toColumns: 7) + " ", x: rect.x + 1, y: rect.y + row, style: Style.plain.dimmed,
                    clip: rect)
            grid.put(name, x: x, y: rect.y + row, style: Style.fg(.cyan), clip: rect)
        }
    }
}
