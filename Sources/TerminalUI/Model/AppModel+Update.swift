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
            } else if cursor(.tasks) >= tasks.visible.count, !tasks.visible.isEmpty {
                // A filter by state let tasks go from under the cursor (it read "89/86").
                clampCursor(.tasks)
            }
            for image in snapshot.preparedImages { preparedImages[image.source] = image }
            if case .finished = event, case .failed(let failure) = snapshot.state, tasks.hasFollowers(snapshot.id) {
                // The status line must not go on saying the chain was queued.
                notice = Notice(
                    "chain stopped: \(snapshot.request.displayName) failed: \(failure); r on it sends it and the rest again",
                    isError: true)
            }
        }
    }

    // MARK: Keys

    private mutating func handle(_ key: Key) -> [Effect] {
        if let overlay { return handle(key, in: overlay) }
        if filterInput != nil { return handleFilter(key) }
        if response.searchInput != nil { return handleSearch(key) }
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
            keepLiveQueue()
            return [.setConcurrency(queue.concurrency)]
        case .character("-"), .character("_"):
            queue.concurrency = max(1, queue.concurrency - 1)
            keepLiveQueue()
            return [.setConcurrency(queue.concurrency)]
        case .character("["), .character("]"):
            queue.limitRate = RateSteps.next(
                from: queue.limitRate, raising: key == .character("]"), speed: tasks.totals.bytesPerSecond)
            target.limitRate = queue.limitRate ?? 0
            keepLiveQueue()
            notice = Notice(
                queue.limitRate.map { "limit \(Format.rate(Double($0))) over every upload ([ lowers, ] raises)" }
                    ?? "no bandwidth limit ([ sets one)")
            return [.setLimitRate(queue.limitRate)]
        case .character("/") where focus != .response:
            focus = .tasks
            filterInput = TextInput(tasks.filter)
        case .character("c"):
            // The marked tasks (Space in the Tasks pane), else the selected one.
            if !markedTasks.isEmpty { return bulk(cancel: markedTasks) }
            if let task = selectedTask, !task.state.isFinished { return [.cancel([task.id])] }
        case .character("r"):
            if !markedTasks.isEmpty { return bulk(retry: markedTasks) }
            if let task = selectedTask, task.state.isFinished || task.isInterrupted, task.state != .succeeded {
                // A chain's failed link runs again with the links its failure cancelled.
                return ([task.id] + tasks.unfinishedFollowers(of: task.id)).map { .retry($0) }
            }
        case .character("R"): return resumeInterrupted()
        case .character("X"):
            let gone = files.filter { restoredFiles.contains($0.id) }.count
            files.removeAll { restoredFiles.contains($0.id) }
            restoredFiles = []
            clampCursor(.files)
            notice = Notice(
                gone > 0
                    ? "discarded \(Target.count(gone, "file")) an earlier hoist had staged"
                    : "no restored file is staged")
        default:
            return handlePaneKey(key)
        }
        return []
    }
}

extension AppModel {
    mutating func keepLiveQueue() {
        liveQueue = LiveQueue(concurrency: queue.concurrency, limitRate: queue.limitRate)
        liveQueueIsEarlier = false
    }

    /// Puts back the queue's settings an earlier hoist had when it ended
    /// (the caller sets the engine's, before the app runs).
    public mutating func restoreLiveQueue(_ live: LiveQueue) {
        liveQueue = live
        liveQueueIsEarlier = true
        queue.concurrency = live.concurrency
        queue.limitRate = live.limitRate
        target.limitRate = live.limitRate ?? 0
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
