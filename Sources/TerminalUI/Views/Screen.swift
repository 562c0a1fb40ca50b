import UploadEngine

/// The whole frame for a model: a pure function, tested as text.
public enum Screen {
    /// The smallest terminal where every pane has a row (see `ScreenLayout`).
    public static let minimum = Size(width: 40, height: 12)

    /// Draws into a blank grid, as the terminal loop makes one for each
    /// frame; areas nothing is drawn in are left as they are.
    public static func render(_ model: AppModel, into grid: inout Grid) {
        guard grid.width >= minimum.width, grid.height >= minimum.height else {
            let text =
                "terminal too small: Hoist needs \(minimum.width)×\(minimum.height), this one is \(grid.width)×\(grid.height)"
            for (row, line) in TextWidth.wrap(text, toColumns: grid.width).prefix(grid.height).enumerated() {
                grid.put(line, x: 0, y: row, style: Style.fg(.yellow))
            }
            return
        }
        let layout = ScreenLayout(size: grid.size)
        Bars.top(model, into: &grid, in: layout.topBar)
        ListPanes.files(model, into: &grid, in: layout.files)
        ListPanes.fields(model, into: &grid, in: layout.fields)
        TasksView.render(model, into: &grid, in: layout.tasks)
        renderResponse(model, into: &grid, in: layout.response)
        Bars.bottom(model, into: &grid, in: layout.hints)
        switch model.overlay {
        case .help(let scroll): HelpView.render(scroll: scroll, into: &grid)
        case .browser(let browser): BrowserView.render(browser, into: &grid)
        case .editor(let form): EditorView.render(form, into: &grid)
        // The count as it is now, not when q was pressed: uploads go on finishing under the dialog.
        case .confirmQuit:
            ConfirmView.render(running: model.tasks.unfinishedCount, journaled: model.journaled, into: &grid)
        case .history(let history): HistoryView.render(history, into: &grid)
        case .value(let title, let text, let scroll):
            ValueView.render(title: title, text: text, scroll: scroll, into: &grid)
        case .restage(let item): ConfirmView.renderRestage(item, staged: model.files.count, into: &grid)
        case .profiles(let picker): ProfilesView.render(picker, into: &grid)
        case nil: break
        }
    }

    static func renderResponse(_ model: AppModel, into grid: inout Grid, in rect: Rect) {
        let focused = model.focus == .response && model.overlay == nil
        let task = model.responseSnapshot
        var title = task.map { "Response · " + $0.request.displayName } ?? Pane.response.title
        let state = model.response
        if state.searchInput != nil || !state.search.isEmpty {
            // The search as it is typed, and which match of how many.
            let text = state.searchInput?.text ?? state.search
            let hit = text.isEmpty ? "" : state.searchHit.map { " \($0.match)/\($0.count)" } ?? " no match"
            title += " / " + text + (state.searchInput != nil ? "▏" : "") + hit
        }
        Frame.draw(&grid, rect, title: title, focused: focused || state.searchInput != nil)
        ResponseView.render(
            model.responseDocument, state: model.response, into: &grid, in: rect.inset(1), focused: focused)
    }
}
