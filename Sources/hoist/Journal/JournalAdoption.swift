import TerminalUI
import UploadEngine
import UploadPlan

/// At start-up, what hoists that are gone left unfinished comes back:
/// their tasks into the engine as interrupted, their staging areas merged
/// into this one. Only once all of it is safe in this process's journal
/// are their journals deleted; an unreadable one is set aside, never deleted.
struct JournalAdoption {
    var summary = RestoreSummary()
    /// The staging area after merging what the dead processes had staged.
    var workspace: JournalWorkspace
    /// Who left the tasks, e.g. `hoist send (pid 4242)`.
    var sources: [String] = []
    /// Journals that could not be read, and where they were put.
    var unreadable: [String] = []
    /// Files staged in a UI that was quit, for another target: kept for it.
    var waiting: [(url: String, files: Int)] = []

    static func run(recorder: JournalRecorder, engine: UploadEngine, workspace: JournalWorkspace) -> JournalAdoption {
        var adoption = JournalAdoption(workspace: workspace)
        var adopted: [Orphan] = []
        var shelved: [(orphan: Orphan, document: JournalDocument, staged: JournalWorkspace)] = []
        for orphan in JournalStore.orphans(in: recorder.store.directory, except: recorder.store.name) {
            let document: JournalDocument
            do {
                document = try orphan.read()
            } catch {
                let kept = orphan.setAside()
                adoption.unreadable.append("\(error); kept as \(kept)")
                continue
            }
            let summary = recorder.restore(document.tasks, into: engine)
            adoption.summary.restored += summary.restored
            adoption.summary.flagged += summary.flagged
            adoption.summary.lost += summary.lost
            adoption.summary.ids += summary.ids.map {
                var restored = $0
                restored.pid = document.pid
                return restored
            }
            // Named where uploads came from: a UI that only had files staged gave none.
            if !document.tasks.isEmpty { adoption.sources.append("hoist \(document.command) (pid \(document.pid))") }
            if var staged = document.workspace, document.quit, staged.target.url != workspace.target.url {
                // The queue's settings are the UI's, not the target's: they come back anyway.
                if adoption.workspace.live == nil { adoption.workspace.live = staged.live }
                let hadLive = staged.live != nil
                staged.live = nil
                if !staged.isEmpty {
                    // Quit with files staged for another target: they wait for it (issue 37 #5).
                    adoption.waiting.append((staged.target.url, staged.files.count))
                    if !document.tasks.isEmpty || hadLive { shelved.append((orphan, document, staged)) }
                    continue
                }
            } else if let staged = document.workspace {
                adoption.workspace.merge(staged)
            }
            adopted.append(orphan)
        }
        guard !adopted.isEmpty || !shelved.isEmpty else { return adoption }
        UploadEngine.removeImagesOfDeadProcesses()
        recorder.setWorkspace(adoption.workspace)
        recorder.sync()
        for (orphan, document, staged) in shelved {
            do {
                try orphan.keep(staged: staged, of: document)
            } catch {
                adoption.unreadable.append("cannot keep what was staged for \(staged.target.url): \(error)")
            }
        }
        for orphan in adopted { orphan.discard() }
        return adoption
    }

    /// One line for the bottom bar, or `nil` when nothing came back.
    var notice: Notice? {
        var parts: [String] = []
        if summary.restored > 0 {
            let n = summary.restored
            parts.append(
                "\(n) interrupted upload\(n == 1 ? "" : "s") from \(sources.joined(separator: ", ")): R resumes \(n == 1 ? "it" : "them")"
            )
        }
        if summary.flagged > 0 { parts.append("\(summary.flagged) with a file that vanished or changed") }
        if !summary.lost.isEmpty { parts.append("cannot resume " + summary.lost.joined(separator: "; ")) }
        parts += unreadable
        guard !parts.isEmpty else { return nil }
        return Notice(
            parts.joined(separator: "; "), isError: summary.flagged > 0 || !summary.lost.isEmpty || !unreadable.isEmpty)
    }
}

extension JournalAdoption {
    /// Puts the merged staging area into the model: target, fields, and the
    /// files not staged yet, each checked again. Returns what to tell the user.
    func restore(into model: inout AppModel) -> Notice? {
        model.target = workspace.target
        model.entries = workspace.entries
        let staged = Set(model.files.map { [$0.path, $0.fieldName] })
        var files: [StagedFile] = []
        var problems: [String] = []
        for file in workspace.files where !staged.contains([file.path, file.field]) {
            guard case .staged(let checked, let why, _) = FileSystem.stage([file.path], field: file.field) else {
                continue
            }
            problems += why
            files += checked.map {
                var f = $0
                f.filename = file.filename
                f.contentType = file.contentType
                f.images = file.images ?? .likeTarget
                return f
            }
        }
        _ = model.update(.staged(files, problems: []))
        model.restoredFiles = Set(model.files.suffix(files.count).map(\.id))
        var notice = self.notice
        if !files.isEmpty, notice == nil {
            notice = Notice(
                "\(Target.count(files.count, "staged file")) restored from an earlier hoist: X discards \(files.count == 1 ? "it" : "them")"
            )
        }
        if !waiting.isEmpty, notice == nil {
            let count = waiting.reduce(0) { $0 + $1.files }
            let urls = Array(Set(waiting.map { $0.url.isEmpty ? "no URL" : Secrets.displayURL($0.url) })).sorted()
            notice = Notice(
                "\(Target.count(count, "file")) staged earlier for \(urls.joined(separator: ", "))"
                    + " wait\(count == 1 ? "s" : "") for hoist tui on that target")
        }
        if !problems.isEmpty {
            let text = "staged earlier but not restaged: " + problems.joined(separator: "; ")
            notice = Notice([notice?.text, text].compactMap { $0 }.joined(separator: "; "), isError: true)
        }
        return notice
    }
}
