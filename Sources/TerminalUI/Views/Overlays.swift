/// Dialogs drawn over the panes: help, file browser, editor, quit confirmation.
enum HelpView {
    static let sections: [(String, [(String, String)])] = [
        (
            "Moving",
            [
                ("Tab / Shift-Tab", "next / previous pane"), ("1 2 3 4", "Files, Fields, Tasks, Response"),
                ("↑↓ or j k", "move in a list"), ("PgUp PgDn", "a page up or down"), ("g / G", "first / last"),
                ("mouse", "click to focus and select; wheel scrolls"),
            ]
        ),
        (
            "Staging",
            [
                ("a", "add files (file browser)"),
                ("Space, * (Files)", "mark a file, mark all or none: u and d act on the marked files"),
                ("e or Enter", "edit: field name, filename, type / field or header"),
                ("d or Del", "delete the marked files, or the selected row"),
                ("D (Files)", "remove every staged file"),
                ("X", "discard the files an earlier hoist left staged (restored at start)"),
                ("K / J", "move the selected file up / down: the order of u"),
                ("f", "add a text field"), ("H", "add a request header"), ("s", "mask or unmask a field's value"),
                (
                    "t",
                    "edit the target: URL, method, body kind, expectation, message path, retries, file field, timeouts, tus and S3 settings"
                ),
                ("I", "prepare images: quality, max size in pixels or bytes, JPEG, metadata"),
                ("O", "profiles: load one (target, fields, headers) from profiles.toml"),
                ("S", "save the target, fields and headers as a new profile"),
            ]
        ),
        (
            "Uploading",
            [
                ("u", "upload marked files, or all staged files"),
                ("o", "mode of u: one task per file, one request, or a chain (each after the one before succeeded)"),
                ("U", "upload each file as its own task"),
                ("c", "cancel the selected task; an interrupted one's upload is freed on the server first"),
                ("r", "retry a failed or cancelled task (a chain's link: and the links it cancelled)"),
                ("R", "resume all interrupted uploads (an earlier hoist left them)"),
                ("K / J, T", "move a queued task up / down, or to the front: the list is the start order"),
                ("Space, *", "mark a task, mark all shown: c, r and d then act on the marked tasks"),
                ("C, A, D", "cancel every unfinished task, retry every failed one, remove every finished one"),
                ("p", "pause or resume the queue"),
                (
                    "P (Tasks)",
                    "pause the selected task, or go on with it (a resumable upload from the server's offset)"
                ), ("+ / -", "more or fewer uploads at once"),
                ("[ / ]", "lower or raise the bandwidth limit over every upload (above 1 GiB/s: none)"),
                ("", "the next hoist starts with these slots and limit (↺ in the top bar)"),
                (
                    "/",
                    "filter tasks: part of a name, a glob (*.jpg), or a state: running, waiting, done, failed, cancelled, interrupted"
                ),
                ("d", "remove a finished task from the list"),
                ("L", "history: earlier uploads; Enter stages one again; / filters (failed, cancelled, a name)"),
                ("M", "messages: the latest notices whole, newest last"),
            ]
        ),
        (
            "Response",
            [
                ("Enter (Tasks)", "show the selected task's response"),
                ("← → or h l", "collapse / expand a JSON node; in a raw body, scroll sideways"),
                ("< > and 0", "scroll long lines sideways, back to the first column"),
                ("Enter or Space", "toggle a node"), ("E / C", "expand all / collapse all"),
                ("/, n N", "search the answer, folded nodes too; the next match, the one before"),
                ("v", "the selected line whole, wrapped (a long value, a one-line body)"),
                ("i", "show or hide headers"), ("x", "show or hide the request as it went (secrets masked)"),
                ("w", "raw body or JSON tree"), ("P", "pretty-print the raw body"),
                ("s", "show or mask the secrets the server echoed"),
            ]
        ),
        (
            "File browser",
            [
                ("Enter or l", "open a directory, or stage the file (or the marked files)"),
                ("Space", "mark a file, or a folder: every file under it, named by its path in it (2026/a.jpg)"),
                ("*", "mark every file shown (not folders)"), ("a", "stage the marked files and folders"),
                ("/", "filter by glob, e.g. *.jpg"),
                (".", "show hidden files"), ("⌫ or h", "parent directory"), ("Esc", "close"),
            ]
        ),
        (
            "Leaving",
            [
                ("?", "this help"), ("q or Ctrl-C", "quit (asks first while uploads run)"),
                (
                    "",
                    "unfinished uploads come back at the next start; staged files too after a crash, else when the same target is opened"
                ),
            ]
        ),
    ]

    static var lines: [(String, String)] {
        sections.flatMap { [("", ""), ($0.0, "")] + $0.1 }.dropFirst().map { $0 }
    }

    static func render(scroll: Int, into grid: inout Grid) {
        // A description longer than its column goes on under itself, not cut.
        let width = min(96, grid.bounds.inset(1).width)
        let all = lines.flatMap { key, text -> [(String, String)] in
            guard !text.isEmpty else { return [(key, text)] }
            return TextWidth.wrap(text, toColumns: max(10, width - 25)).enumerated().map {
                ($0.offset == 0 ? key : "", $0.element)
            }
        }
        let rect = grid.bounds.inset(1).centered(width: width, height: all.count + 2)
        Frame.dialog(&grid, rect, title: "Keys")
        let inner = rect.inset(1)
        let top = min(scroll, max(0, all.count - inner.height))
        for row in 0..<inner.height {
            guard top + row < all.count else { break }
            let (key, text) = all[top + row]
            let y = inner.y + row
            if text.isEmpty {
                grid.put(key, x: inner.x + 1, y: y, style: Style.fg(.yellow).bolded, clip: inner)
            } else {
                grid.put(key, x: inner.x + 3, y: y, style: Style.fg(.cyan).bolded, maxWidth: 18, clip: inner)
                grid.put(text, x: inner.x + 22, y: y, clip: inner)
            }
        }
        if all.count > inner.height {
            grid.put(
                " \(top + inner.height)/\(all.count) ", x: rect.maxX - 10, y: rect.maxY - 1, style: Style.fg(.cyan),
                clip: rect)
        }
    }
}

/// `v`: one line of the Response pane whole, wrapped to the dialog.
enum ValueView {
    /// The dialog's rectangle on a screen of `size`, and the text's rows in it.
    static func layout(_ text: String, size: Size) -> (rect: Rect, rows: [String]) {
        let outer = Rect(size: size).inset(1)
        let width = min(100, outer.width)
        let rows = TextWidth.wrap(text, toColumns: max(1, width - 4))
        return (outer.centered(width: width, height: min(outer.height, rows.count + 2)), rows)
    }

    /// The scroll that shows the text's end.
    static func bottom(_ text: String, size: Size) -> Int {
        let (rect, rows) = layout(text, size: size)
        return max(0, rows.count - rect.inset(1).height)
    }

    static func render(title: String, text: String, scroll: Int, into grid: inout Grid) {
        let (rect, rows) = layout(text, size: grid.size)
        let width = rect.width
        Frame.dialog(&grid, rect, title: TextWidth.truncate(title, toColumns: max(1, width - 8)))
        let inner = rect.inset(1)
        let top = min(scroll, max(0, rows.count - inner.height))
        for row in 0..<inner.height where top + row < rows.count {
            grid.put(rows[top + row], x: inner.x + 1, y: inner.y + row, clip: inner)
        }
        if rows.count > inner.height {
            grid.put(
                " \(top + inner.height)/\(rows.count) ", x: rect.maxX - 12, y: rect.maxY - 1, style: Style.fg(.cyan),
                clip: rect)
        }
    }
}

enum BrowserView {
    static func rect(for size: Size) -> Rect {
        Rect(size: size).inset(1).centered(width: 100, height: 40)
    }

    /// Entry rows: the dialog less its frame, the path line and the glob line.
    static func listHeight(for size: Size) -> Int {
        max(1, rect(for: size).height - 4)
    }

    static func render(_ browser: FileBrowser, into grid: inout Grid) {
        let rect = rect(for: grid.size)
        Frame.dialog(&grid, rect, title: "Add files")
        let inner = rect.inset(1)
        guard inner.height >= 3 else { return }
        grid.put(browser.directory, x: inner.x + 1, y: inner.y, style: Style.plain.bolded, clip: inner)
        if !browser.marked.isEmpty {
            let text = " \(browser.marked.count) marked "
            grid.put(
                text, x: inner.maxX - TextWidth.columns(of: text), y: inner.y, style: Style.fg(.yellow).bolded,
                clip: inner)
        }
        let list = Rect(x: inner.x, y: inner.y + 1, width: inner.width, height: inner.height - 2)
        let visible = browser.visibleEntries
        if let error = browser.error {
            grid.put("✘ " + error, x: list.x + 1, y: list.y, style: Style.fg(.red), clip: list)
        } else if browser.entries == nil {
            grid.put("reading…", x: list.x + 1, y: list.y, style: Style.plain.dimmed, clip: list)
        }
        for row in 0..<list.height {
            let index = browser.scroll + row
            guard index < visible.count else { break }
            let entry = visible[index]
            let y = list.y + row
            let isMarked = entry.name != ".." && browser.marked.contains(browser.path(of: entry))
            var x = list.x + 1
            x += grid.put(isMarked ? "● " : "  ", x: x, y: y, style: Style.fg(.yellow).bolded, clip: list)
            let name = entry.isDirectory ? entry.name + "/" : entry.name
            let style: Style =
                entry.isDirectory ? Style.fg(.blue).bolded : (entry.isHidden ? Style.plain.dimmed : .plain)
            grid.put(name, x: x, y: y, style: style, maxWidth: list.width - 16, clip: list)
            if !entry.isDirectory {
                let size = Format.bytes(entry.size)
                grid.put(
                    size, x: list.maxX - 1 - TextWidth.columns(of: size), y: y, style: Style.plain.dimmed, clip: list)
            }
            if index == browser.cursor { ListPanes.highlight(&grid, list.row(row), focused: true) }
        }
        let globY = inner.maxY - 1
        var x = inner.x + 1
        x += grid.put("glob: ", x: x, y: globY, style: Style.plain.dimmed, clip: inner)
        if browser.isEditingGlob {
            drawInput(browser.glob, into: &grid, at: Rect(x: x, y: globY, width: 30, height: 1))
        } else {
            grid.put(
                browser.glob.text.isEmpty ? "(all files; / to set)" : browser.glob.text, x: x, y: globY,
                style: browser.glob.text.isEmpty ? Style.plain.dimmed : Style.fg(.yellow), clip: inner)
        }
        let hidden = browser.showHidden ? "hidden shown (.)" : "hidden not shown (.)"
        grid.put(
            hidden, x: inner.maxX - 1 - TextWidth.columns(of: hidden), y: globY, style: Style.plain.dimmed, clip: inner)
    }
}

/// A text input with its cursor drawn as a reversed cell.
func drawInput(_ input: TextInput, into grid: inout Grid, at rect: Rect) {
    let (text, cursor) = input.window(width: rect.width)
    grid.fill(rect, style: Style.plain.underlined)
    grid.put(text, x: rect.x, y: rect.y, style: Style.plain.underlined, clip: rect)
    if rect.x + cursor < rect.maxX {
        grid.restyle(Rect(x: rect.x + cursor, y: rect.y, width: 1, height: 1)) { $0.reverse = true }
    }
}

enum EditorView {
    static func render(_ form: EditorForm, into grid: inout Grid) {
        let labelWidth = (form.rows.map { TextWidth.columns(of: $0.label) }.max() ?? 0) + 2
        let room = grid.bounds.inset(1)
        // A hint under every row when they fit; otherwise a row a line, and
        // the focused row's hint on the line before the error.
        let spaced = form.rows.count * 2 + 3 <= room.height
        let height = spaced ? form.rows.count * 2 + 3 : form.rows.count + 4
        let rect = room.centered(width: 76, height: height)
        Frame.dialog(&grid, rect, title: form.title)
        let inner = rect.inset(1)
        for (index, row) in form.rows.enumerated() {
            let y = inner.y + index * (spaced ? 2 : 1)
            let focused = index == form.focus
            grid.put(row.label, x: inner.x + 1, y: y, style: focused ? Style.fg(.cyan).bolded : .plain, clip: inner)
            let field = Rect(x: inner.x + 1 + labelWidth, y: y, width: inner.width - labelWidth - 2, height: 1)
            switch row.input {
            case .text(let typed):
                let input = form.masks(index) ? typed.masked : typed
                if focused {
                    drawInput(input, into: &grid, at: field)
                } else {
                    grid.put(input.text, x: field.x, y: y, clip: field)
                }
            case .choice(let options, let selected):
                var x = field.x
                for (i, option) in options.enumerated() {
                    let style: Style =
                        i == selected
                        ? (focused ? Style(foreground: .cyan, reverse: true).bolded : Style.plain.bolded.reversed)
                        : Style.plain.dimmed
                    x += grid.put(" \(option) ", x: x, y: y, style: style, clip: field) + 1
                }
            }
            if !row.hint.isEmpty, spaced || focused {
                let hintY = spaced ? y + 1 : inner.y + form.rows.count
                grid.put(row.hint, x: spaced ? field.x : inner.x + 1, y: hintY, style: Style.plain.dimmed, clip: inner)
            }
        }
        if let error = form.error {
            grid.put("✘ " + error, x: inner.x + 1, y: inner.maxY - 1, style: Style.fg(.red).bolded, clip: inner)
        }
    }
}

enum ConfirmView {
    /// History's Enter while files are staged: what becomes of them.
    static func renderRestage(_ item: HistoryItem, staged: Int, into grid: inout Grid) {
        let rect = grid.bounds.centered(width: 64, height: 6)
        Frame.dialog(&grid, rect, title: "Stage again")
        let inner = rect.inset(1)
        let count = item.files.count
        grid.put(
            "\(count) file\(count == 1 ? "" : "s") of that upload; \(staged) file\(staged == 1 ? " is" : "s are") staged now.",
            x: inner.x + 1, y: inner.y, style: Style.plain.bolded, clip: inner)
        grid.put("r  replace the staged files with them", x: inner.x + 1, y: inner.y + 2, clip: inner)
        grid.put("a  add them, marked: u sends only them   Esc  cancel", x: inner.x + 1, y: inner.y + 3, clip: inner)
    }

    static func render(running: Int, journaled: Bool, into grid: inout Grid) {
        let rect = grid.bounds.centered(width: 60, height: 5)
        Frame.dialog(&grid, rect, title: "Quit?")
        let inner = rect.inset(1)
        guard running > 0 else {
            grid.put("Every upload has finished.", x: inner.x + 1, y: inner.y, style: Style.fg(.green), clip: inner)
            grid.put("Quit?  y / n", x: inner.x + 1, y: inner.y + 2, clip: inner)
            return
        }
        grid.put(
            "\(running) upload\(running == 1 ? " is" : "s are") not finished.", x: inner.x + 1, y: inner.y,
            style: Style.fg(.yellow).bolded, clip: inner)
        let question =
            journaled
            ? "Quit? \(running == 1 ? "It stays" : "They stay") in the journal for next time.  y / n"
            : "Quit and cancel \(running == 1 ? "it" : "them")?  y / n"
        grid.put(question, x: inner.x + 1, y: inner.y + 2, clip: inner)
    }
}
