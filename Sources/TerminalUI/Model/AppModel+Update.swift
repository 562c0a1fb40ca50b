import UploadEngine
import UploadPlan

extension AppModel {
    /// The one place the model changes: a message in, the effects the app
    /// must carry out back. Pure; tested with messages in and models out.
    public mutating func update(_ message: Message) -> [Effect] {
        switch message {
        case .key(let key):
            notice = nil
            return handle(key)
        case .resize(let newSize):
            size = newSize
            for pane in [Pane.files, .fields, .tasks] { keepCursorVisible(pane) }
            return []
        case .engine(let event):
            apply(event)
            return []
        case .listed(let directory, let listing):
            guard case .browser(var browser) = overlay, browser.directory == directory else { return [] }
            browser.setListing(listing)
            overlay = .browser(browser)
            return []
        case .listingFailed(let directory, let error):
            guard case .browser(var browser) = overlay, browser.directory == directory else { return [] }
            browser.entries = []
            browser.error = error
            overlay = .browser(browser)
            return []
        case .staged(let staged, let problems, let folders):
            for var file in staged {
                file.marked = marksWhenStaged.remove(file.path) != nil
                stage(file)
            }
            if !problems.isEmpty {
                notice = Notice(problems.joined(separator: "; "), isError: true)
            } else if !staged.isEmpty || !folders.isEmpty {
                notice = Notice(
                    "staged \(Target.count(staged.count, "file"))"
                        + (folders.isEmpty ? "" : " · " + folders.joined(separator: " · ")))
            }
            return []
        case .uploadRefused(let reason):
            notice = Notice(reason, isError: true)
            return []
        case .notice(let new):
            notice = new
            return []
        case .profilesLoaded(let items, let path, let error):
            guard case .profiles = overlay else { return [] }
            overlay = .profiles(ProfilePicker(items: items, isLoading: false, error: error, path: path))
            return []
        case .profileLoaded(let name, let newTarget, let newEntries, let concurrency):
            target = newTarget
            entries = newEntries
            profile = name
            clampCursor(.fields)
            let fields = entries.filter { $0.kind == .field }.count, headers = entries.count - fields
            notice = Notice(
                "profile \(name): \(fields) field\(fields == 1 ? "" : "s"), \(headers) header\(headers == 1 ? "" : "s"), \(target.method.rawValue) \(Secrets.displayURL(target.url))"
            )
            // The profile's limit, or the one in force before it when it has none.
            queue.limitRate = target.bandwidthLimit
            return (concurrency.map { [.setConcurrency($0)] } ?? []) + [.setLimitRate(queue.limitRate)]
        case .profileSaved(let name, let path, let error):
            if let error {
                notice = Notice(error, isError: true)
            } else {
                profile = name
                notice = Notice("saved profile \(name) in \(path)")
            }
            return []
        case .interrupted:
            quitting = true
            interrupted = true
            return [.quit]
        case .historyLoaded(let items, let error):
            guard case .history = overlay else { return [] }
            overlay = .history(HistoryBrowser(items: items.reversed(), isLoading: false, error: error))
            return []
        }
    }

    // MARK: Engine events

    private mutating func apply(_ event: UploadEvent) {
        switch event {
        case .queueChanged(let status):
            queue = status
        case .added(let snapshot):
            tasks.apply(snapshot)
            if selectsNextAdded, let place = tasks.visible.firstIndex(of: snapshot.id) {
                // What u just queued is what the user wants to watch.
                selectsNextAdded = false
                cursor[.tasks] = place
                keepCursorVisible(.tasks)
                followSelection()
            } else if responseTask == nil, let selected = selectedTask {
                responseTask = selected.id
            }
        case .stateChanged(let snapshot), .progress(let snapshot), .checkpoint(let snapshot), .finished(let snapshot):
            // A moved task keeps the cursor if it had it.
            if tasks.apply(snapshot), let selected = responseTask, let place = tasks.visible.firstIndex(of: selected) {
                cursor[.tasks] = place
                keepCursorVisible(.tasks)
            }
            for image in snapshot.preparedImages { preparedImages[image.source] = image }
        }
    }

    // MARK: Keys

    private mutating func handle(_ key: Key) -> [Effect] {
        if let overlay { return handle(key, in: overlay) }
        if filterInput != nil { return handleFilter(key) }
        if case .click(let x, let y) = key { return click(x: x, y: y) }
        switch key {
        case .tab: focus = Pane(rawValue: (focus.rawValue + 1) % Pane.allCases.count)!
        case .backTab: focus = Pane(rawValue: (focus.rawValue + Pane.allCases.count - 1) % Pane.allCases.count)!
        case .character("1"), .character("2"), .character("3"), .character("4"):
            if case .character(let c) = key, let n = c.wholeNumberValue { focus = Pane(rawValue: n - 1)! }
        case .character("?"), .function(1): overlay = .help(scroll: 0)
        case .character("L"):
            overlay = .history(HistoryBrowser())
            return [.loadHistory]
        case .character("O"):
            overlay = .profiles(ProfilePicker())
            return [.loadProfiles]
        case .character("S"):
            overlay = .editor(
                EditorForm(
                    purpose: .saveProfile, title: "Save as profile",
                    rows: [.init("Name", text: profile ?? "", hint: "letters, digits, - and _")]))
        case .character("q"), .control("c"): return requestQuit()
        case .character("a"): return openBrowser()
        case .character("f"): overlay = .editor(entryForm(.newEntry(.field)))
        case .character("H"): overlay = .editor(entryForm(.newEntry(.header)))
        case .character("t"): overlay = .editor(TargetForm.make(target))
        case .character("I"): overlay = .editor(imageForm())
        case .character("M"):
            let log = messages.map { ($0.isError ? "✘ " : "✔ ") + $0.text }.joined(separator: "\n")
            let text = log.isEmpty ? "no messages yet" : log
            overlay = .value(title: "Messages", text: text, scroll: ValueView.bottom(text, size: size))
        case .character("u"): return upload(sendMode)
        case .character("U"): return upload(.taskPerFile)
        case .character("o"):
            sendMode = sendMode.next
            notice = Notice(sendMode.notice)
        // Each key counts from what the keys before it asked, not from the engine's
        // last report, which a burst (`++++`) outruns.
        case .character("p"):
            queue.isPaused.toggle()
            return [queue.isPaused ? .pause : .resume]
        case .character("+"), .character("="):
            queue.concurrency = min(64, queue.concurrency + 1)
            return [.setConcurrency(queue.concurrency)]
        case .character("-"), .character("_"):
            queue.concurrency = max(1, queue.concurrency - 1)
            return [.setConcurrency(queue.concurrency)]
        case .character("["), .character("]"):
            queue.limitRate = RateSteps.next(
                from: queue.limitRate, raising: key == .character("]"), speed: tasks.totals.bytesPerSecond)
            target.limitRate = queue.limitRate ?? 0
            notice = Notice(
                queue.limitRate.map { "limit \(Format.rate(Double($0))) over every upload ([ lowers, ] raises)" }
                    ?? "no bandwidth limit ([ sets one)")
            return [.setLimitRate(queue.limitRate)]
        case .character("/"):
            focus = .tasks
            filterInput = TextInput(tasks.filter)
        case .character("c"):
            // The marked tasks (Space in the Tasks pane), else the selected one.
            if !markedTasks.isEmpty { return bulk(cancel: markedTasks) }
            if let task = selectedTask, !task.state.isFinished { return [.cancel(task.id)] }
        case .character("r"):
            if !markedTasks.isEmpty { return bulk(retry: markedTasks) }
            if let task = selectedTask, task.state.isFinished || task.isInterrupted, task.state != .succeeded {
                // A chain's failed link runs again with the links its failure cancelled.
                return ([task.id] + tasks.unfinishedFollowers(of: task.id)).map { .retry($0) }
            }
        case .character("R"): return resumeInterrupted()
        default:
            return handlePaneKey(key)
        }
        return []
    }

    private mutating func handlePaneKey(_ key: Key) -> [Effect] {
        if focus == .response {
            let document = responseDocument
            let height = ScreenLayout(size: size).listHeight(.response)
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
        case (.files, .character("d")), (.files, .delete):
            if cursor(.files) < files.count { files.remove(at: cursor(.files)) }
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

    private mutating func followSelection() {
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

    private mutating func click(x: Int, y: Int) -> [Effect] {
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

    private mutating func handleFilter(_ key: Key) -> [Effect] {
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
        // The selected task keeps the cursor when the filter still shows it.
        if let selected = responseTask, let place = tasks.visible.firstIndex(of: selected) {
            cursor[.tasks] = place
            keepCursorVisible(.tasks)
        } else {
            clampCursor(.tasks)
        }
        followSelection()
        return []
    }

    // MARK: Bulk actions

    /// Cancels those of `ids` still to finish, and clears the marks.
    private mutating func bulk(cancel ids: Set<TaskID>) -> [Effect] {
        let chosen = tasks.order.filter { ids.contains($0) && tasks[$0].map { !$0.state.isFinished } == true }
        markedTasks = []
        notice = Notice(chosen.isEmpty ? "no task to cancel" : "cancelling \(Target.count(chosen.count, "task"))")
        return chosen.map { .cancel($0) }
    }

    /// Retries those of `ids` that failed or were cancelled, in list order
    /// (interrupted ones are R's: it checks their files first).
    private mutating func bulk(retry ids: Set<TaskID>) -> [Effect] {
        let chosen = tasks.order.filter {
            ids.contains($0) && tasks[$0].map { $0.state.isFinished && $0.state != .succeeded } == true
        }
        markedTasks = []
        notice = Notice(
            chosen.isEmpty ? "no failed or cancelled task to retry" : "retrying \(Target.count(chosen.count, "task"))")
        return chosen.map { .retry($0) }
    }

    /// Removes those of `ids` that finished from the list; running ones stay.
    private mutating func removeFinished(_ ids: Set<TaskID>) {
        let finished = tasks.order.filter { ids.contains($0) && tasks[$0]?.state.isFinished == true }
        for id in finished { tasks.remove(id) }
        markedTasks.subtract(finished)
        let left = ids.count - finished.count
        notice = Notice(
            "removed \(Target.count(finished.count, "finished task"))" + (left > 0 ? ", \(left) not finished kept" : "")
        )
        clampCursor(.tasks)
        followSelection()
    }

    // MARK: Upload and quit

    private mutating func upload(_ mode: SendMode) -> [Effect] {
        let marked = files.filter(\.marked)
        let chosen = marked.isEmpty ? files : marked
        do {
            let sending = target.bodyKind.usesFiles ? chosen.map(\.choice) : []
            let sent = target.bodyKind.usesFields ? entries : entries.filter { $0.kind == .header }
            var imagesByFile: [String: ImageSettings?] = [:]
            for file in chosen where file.images != .likeTarget {
                imagesByFile.updateValue(imageSettings(for: file), forKey: file.path)
            }
            let requests = try target.requests(
                entries: sent, payload: Payload(files: sending, oneRequest: mode == .oneRequest),
                imagesByFile: imagesByFile)
            for i in files.indices { files[i].marked = false }
            selectsNextAdded = true
            notice = Notice(
                "queued \(Target.count(requests.count, "task")) → \(target.howSent) \(Secrets.displayURL(target.url))"
            )
            return [.upload(requests, chained: mode == .chain && requests.count > 1)]
        } catch {
            notice = Notice(Self.hint(for: error), isError: true)
            return []
        }
    }

    /// What is wrong, with the key that fixes it.
    static func hint(for error: PlanError) -> String {
        switch error {
        case .noURL: return "no target URL: press t to set one"
        case .nothingToSend: return "nothing to upload: press a to add files or f to add a field"
        case .needsFile, .tusNeedsFile: return "\(error): press a to add one"
        case .needsFields: return "\(error): press f to add one"
        case .badValue(let value): return "target: \(value): press t to change it"
        case .cannotSendFields, .onlyTextParts: return error.description
        case .tusTextOnly, .tusMetadataKey: return "\(error): press f to change the fields"
        case .s3FilesOnly: return "\(error): press f to change the fields"
        case .s3: return "target: \(error): press t to change it"
        }
    }

    private mutating func resumeInterrupted() -> [Effect] {
        let all = tasks.totals.interrupted
        guard all > 0 else {
            notice = Notice("no interrupted uploads to resume")
            return []
        }
        let flagged = tasks.totals.flagged
        var text = "resuming \(all - flagged) interrupted upload\(all - flagged == 1 ? "" : "s")"
        if flagged > 0 {
            text += "; \(flagged) left alone: a file vanished or changed (r sends one anyway, c drops it)"
        }
        notice = Notice(text, isError: flagged > 0)
        return all > flagged ? [.resumeInterrupted] : []
    }

    private mutating func requestQuit() -> [Effect] {
        let running = tasks.unfinishedCount
        if running > 0 {
            overlay = .confirmQuit
            return []
        }
        quitting = true
        return [.quit]
    }

    private mutating func openBrowser() -> [Effect] {
        let browser = FileBrowser(directory: startDirectory)
        overlay = .browser(browser)
        return [.list(directory: browser.directory)]
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
