import UploadEngine
import UploadPlan

extension AppModel {
    // MARK: Bulk actions

    /// Cancels those of `ids` still to finish, and clears the marks.
    mutating func bulk(cancel ids: Set<TaskID>) -> [Effect] {
        let chosen = tasks.order.filter { ids.contains($0) && tasks[$0].map { !$0.state.isFinished } == true }
        markedTasks = []
        notice = Notice(chosen.isEmpty ? "no task to cancel" : "cancelling \(Target.count(chosen.count, "task"))")
        return chosen.isEmpty ? [] : [.cancel(chosen)]
    }

    /// Retries those of `ids` that failed or were cancelled, in list order
    /// (interrupted ones are R's: it checks their files first).
    mutating func bulk(retry ids: Set<TaskID>) -> [Effect] {
        let chosen = tasks.order.filter {
            ids.contains($0) && tasks[$0].map { $0.state.isFinished && $0.state != .succeeded } == true
        }
        markedTasks = []
        notice = Notice(
            chosen.isEmpty ? "no failed or cancelled task to retry" : "retrying \(Target.count(chosen.count, "task"))")
        return chosen.map { .retry($0) }
    }

    /// Removes those of `ids` that finished from the list; running ones stay.
    mutating func removeFinished(_ ids: Set<TaskID>) {
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

    mutating func upload(_ mode: SendMode) -> [Effect] {
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
        case .s3, .kind: return "target: \(error): press t to change it"
        }
    }

    mutating func resumeInterrupted() -> [Effect] {
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

    mutating func requestQuit() -> [Effect] {
        let running = tasks.unfinishedCount
        if running > 0 {
            overlay = .confirmQuit
            return []
        }
        quitting = true
        return [.quit]
    }

    mutating func openBrowser() -> [Effect] {
        let browser = FileBrowser(directory: startDirectory)
        overlay = .browser(browser)
        return [.list(directory: browser.directory)]
    }
}
