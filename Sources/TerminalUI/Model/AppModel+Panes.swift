import UploadEngine
import UploadPlan

extension AppModel {
    // MARK: Keys

    mutating func handlePaneKey(_ key: Key) -> [Effect] {
        if focus == .response {
            let document = responseDocument
            let height = ScreenLayout(size: size).listHeight(.response)
            switch key {
            case .character("/"):
                response.searchInput = TextInput()
                return []
            case .character("n"), .character("N"):
                guard !response.search.isEmpty else {
                    notice = Notice("/ searches the answer; n and N then find the next and the one before")
                    return []
                }
                if !response.find(
                    response.search, key == .character("n") ? .next : .previous, in: document, viewHeight: height)
                {
                    notice = Notice("no line holds \(String(reflecting: response.search))", isError: true)
                }
                return []
            default: break
            }
            if key == .character("v") {
                // A value too long for the pane, read whole.
                let at = response.window(lineCount: document.lines.count, viewHeight: height).cursor
                guard document.lines.indices.contains(at) else { return [] }
                let text = document.lines[at].spans.map(\.text).joined()
                overlay = .value(title: document.lines[at].path ?? "line \(at + 1)", text: text, scroll: 0)
                return []
            }
            response.handle(key, document: document, viewHeight: height)
            return []
        }
        if moveCursor(key) { return [] }
        switch (focus, key) {
        case (.files, .character(" ")):
            let i = cursor(.files)
            guard i < files.count else { break }
            files[i].marked.toggle()
            _ = moveCursor(.down)
        case (.files, .character("K")), (.files, .character("J")):
            // The order of the Files pane is the order of the tasks, and of a chain.
            let from = cursor(.files)
            let to = from + (key == .character("K") ? -1 : 1)
            guard files.indices.contains(from), files.indices.contains(to) else { break }
            files.swapAt(from, to)
            cursor[.files] = to
            keepCursorVisible(.files)
        case (.tasks, .character("K")), (.tasks, .character("J")), (.tasks, .character("T")):
            // The order of the Tasks pane is the order queued tasks start in.
            guard let task = selectedTask else { break }
            guard task.state == .queued else {
                notice = Notice("only a queued task moves: this one is \(task.state.name)", isError: true)
                break
            }
            return [.move(task.id, key == .character("K") ? .up : key == .character("J") ? .down : .front)]
        case (.files, .character("e")), (.files, .enter):
            if let file = files[safe: cursor(.files)] { overlay = .editor(fileForm(file)) }
        case (.files, .character("*")):
            let all = !files.allSatisfy(\.marked)
            for index in files.indices { files[index].marked = all }
            notice = Notice(all ? "\(Target.count(files.count, "file")) marked: u and d act on them" : "no file marked")
        case (.files, .character("d")), (.files, .delete):
            // The marked files when there are marks, as c, r and d do in Tasks (issue 37 #7).
            let marked = files.filter(\.marked).count
            if marked > 0 {
                files.removeAll(where: \.marked)
                notice = Notice("removed \(Target.count(marked, "marked file"))")
            } else if cursor(.files) < files.count {
                files.remove(at: cursor(.files))
            }
            clampCursor(.files)
        case (.files, .character("D")):
            // Clear all: the staging area empty, as D empties Tasks of finished ones.
            notice = Notice(files.isEmpty ? "no file is staged" : "removed every staged file (\(files.count))")
            files = []
            restoredFiles = []
            clampCursor(.files)
        case (.fields, .character("e")), (.fields, .enter):
            if entries.indices.contains(cursor(.fields)) {
                overlay = .editor(entryForm(.editEntry(index: cursor(.fields))))
            }
        case (.fields, .character("d")), (.fields, .delete):
            if entries.indices.contains(cursor(.fields)) { entries.remove(at: cursor(.fields)) }
            clampCursor(.fields)
        case (.fields, .character("s")):
            if entries.indices.contains(cursor(.fields)) { entries[cursor(.fields)].isSecret.toggle() }
        case (.tasks, .enter):
            focus = .response
        case (.tasks, .escape) where !tasks.filter.isEmpty:
            // The filter typed and kept with Enter: Esc clears it here too.
            tasks.setFilter("")
            cursorAfterFiltering()
        case (.tasks, .character(" ")):
            guard let task = selectedTask else { break }
            if markedTasks.remove(task.id) == nil { markedTasks.insert(task.id) }
            _ = moveCursor(.down)
            followSelection()
        case (.tasks, .character("*")):
            let shown = Set(tasks.visible)
            if shown.isSubset(of: markedTasks) { markedTasks.subtract(shown) } else { markedTasks.formUnion(shown) }
            notice = Notice("\(Target.count(markedTasks.count, "task")) marked: c, r, d act on them")
        case (.tasks, .character("P")):
            // One task paused, or a paused one going on (with the chain links its pause cancelled).
            guard let task = selectedTask else { break }
            if task.isPaused { return ([task.id] + tasks.unfinishedFollowers(of: task.id)).map { .retry($0) } }
            guard !task.state.isFinished else {
                notice = Notice("only an unfinished task pauses: this one is \(task.state.name)", isError: true)
                break
            }
            notice = Notice(
                "\(task.request.displayName) paused: P goes on"
                    + (task.request.isResumable ? " from where the server is" : ", from the start"))
            return [.pauseTask(task.id)]
        // Every task at once (in the Response pane, C collapses the tree).
        case (.tasks, .character("C")): return bulk(cancel: Set(tasks.order))
        case (.tasks, .character("A")): return bulk(retry: Set(tasks.order))
        case (.tasks, .character("D")):
            removeFinished(Set(tasks.order))
        case (.tasks, .character("d")), (.tasks, .delete):
            if !markedTasks.isEmpty {
                removeFinished(markedTasks)
            } else if let task = selectedTask {
                if task.state.isFinished {
                    tasks.remove(task.id)
                    clampCursor(.tasks)
                    followSelection()
                } else {
                    notice = Notice("the task is still running: press c to cancel it first", isError: true)
                }
            }
        default:
            break
        }
        return []
    }

    // MARK: Lists

    func itemCount(_ pane: Pane) -> Int {
        switch pane {
        case .files: return files.count
        case .fields: return entries.count
        case .tasks: return tasks.visible.count
        case .response: return 0
        }
    }

    /// Up/Down/j/k, PgUp/PgDn, g/G and Home/End in the focused list.
    private mutating func moveCursor(_ key: Key) -> Bool {
        let count = itemCount(focus)
        let page = ScreenLayout(size: size).listHeight(focus)
        let current = cursor(focus)
        let target: Int
        switch key {
        case .up, .character("k"): target = current - 1
        case .down, .character("j"): target = current + 1
        case .pageUp, .control("b"): target = current - page
        case .pageDown, .control("f"): target = current + page
        case .home, .character("g"): target = 0
        case .end, .character("G"): target = count - 1
        case .wheel(let up, _, _): target = current + (up ? -3 : 3)
        default: return false
        }
        cursor[focus] = max(0, min(count - 1, target))
        keepCursorVisible(focus)
        if focus == .tasks { followSelection() }
        return true
    }

    mutating func clampCursor(_ pane: Pane) {
        cursor[pane] = max(0, min(itemCount(pane) - 1, cursor(pane)))
        keepCursorVisible(pane)
    }

    /// Scrolls only as far as needed, so the list does not jump.
    mutating func keepCursorVisible(_ pane: Pane) {
        let height = ScreenLayout(size: size).listHeight(pane)
        let c = cursor(pane)
        var top = scroll[pane, default: 0]
        if c < top { top = c }
        if c >= top + height { top = c - height + 1 }
        scroll[pane] = max(0, min(top, max(0, itemCount(pane) - height)))
    }

    mutating func followSelection() {
        let id = selectedTask?.id
        if id != responseTask {
            responseTask = id
            response = ResponseViewState()
        }
    }

    var responseSnapshot: TaskSnapshot? { responseTask.flatMap { tasks[$0] } }

    /// What the Response pane shows, with the fields marked secret masked in the answer too.
    var responseDocument: ResponseDocument {
        ResponseDocument(
            task: responseSnapshot, state: response, secretNames: Set(entries.filter(\.isSecret).map(\.name)))
    }

    // MARK: Mouse

    mutating func click(x: Int, y: Int) -> [Effect] {
        let layout = ScreenLayout(size: size)
        guard let pane = Pane.allCases.first(where: { layout.rect($0).contains(x: x, y: y) }) else { return [] }
        focus = pane
        if pane == .response {
            let lines = responseDocument.lines.count
            response.select(
                row: y - layout.rect(pane).y - 1, lineCount: lines, viewHeight: layout.listHeight(.response))
            return []
        }
        let row = (y - layout.rect(pane).y - 1) / layout.rowsPerItem(pane) + scroll[pane, default: 0]
        if pane != .response, row >= scroll[pane, default: 0], row < itemCount(pane) {
            cursor[pane] = row
            if pane == .tasks { followSelection() }
        }
        return []
    }

    // MARK: Filter

    /// The Response pane's search as it is typed: each key finds from the
    /// cursor on; Enter keeps the text for n and N, Esc drops it.
    mutating func handleSearch(_ key: Key) -> [Effect] {
        guard var input = response.searchInput else { return [] }
        switch key {
        case .enter:
            response.searchInput = nil
        case .escape:
            response.searchInput = nil
            response.search = ""
            response.searchHit = nil
        default:
            guard input.handle(key) else { return [] }
            response.searchInput = input
            let height = ScreenLayout(size: size).listHeight(.response)
            response.find(input.text, .here, in: responseDocument, viewHeight: height)
        }
        return []
    }

    mutating func handleFilter(_ key: Key) -> [Effect] {
        guard var input = filterInput else { return [] }
        switch key {
        case .enter:
            filterInput = nil
        case .escape:
            filterInput = nil
            tasks.setFilter("")
        default:
            _ = input.handle(key)
            filterInput = input
            tasks.setFilter(input.text)
        }
        cursorAfterFiltering()
        return []
    }

    /// The selected task keeps the cursor when the filter still shows it.
    mutating func cursorAfterFiltering() {
        if let selected = responseTask, let place = tasks.visible.firstIndex(of: selected) {
            cursor[.tasks] = place
            keepCursorVisible(.tasks)
        } else {
            clampCursor(.tasks)
        }
        followSelection()
    }
}
