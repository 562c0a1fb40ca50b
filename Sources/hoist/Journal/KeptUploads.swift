import FormData
import FoundationEssentials
import UploadEngine

/// A new `hoist send` of a file whose upload an earlier run kept (its
/// server was away, or it was killed) goes on with that upload instead of
/// starting another, as tus-js-client's fingerprint storage does (issue 37
/// #4). The earlier run's journal must name the same URL and kind, and the
/// same file unchanged: inode, size and modification time.
enum KeptUploads {
    /// Finds kept uploads for the queued `ids` (in `requests`' order), gives
    /// each its checkpoint, and takes it out of the journal that kept it,
    /// once this run's journal holds it. Returns a line for each, to say so.
    static func goOn(
        _ ids: [TaskID], requests: [UploadRequest], engine: UploadEngine, journal: JournalRecorder
    ) -> [String] {
        var wanted: [(id: TaskID, request: UploadRequest, file: FileSnapshot)] = []
        for (id, request) in zip(ids, requests) where request.transfer.name != "single" {
            guard case .rawFile(let path, _) = request.body, let file = FileSnapshot(path: path) else { continue }
            wanted.append((id, request, file))
        }
        guard !wanted.isEmpty else { return [] }
        var lines: [String] = []
        var emptied: [(Orphan, JournalDocument)] = []
        let orphans = JournalStore.orphans(in: journal.store.directory, except: journal.store.name)
        for orphan in orphans {
            guard var document = try? orphan.read() else { continue }
            var taken = false
            for task in document.tasks {
                guard let checkpoint = task.checkpoint, task.after == nil, task.problemNow == nil,
                    !document.tasks.contains(where: { $0.after == task.id }), task.files.count == 1,
                    let match = wanted.firstIndex(where: { wanted in
                        wanted.request.url == task.request.url
                            && wanted.request.transfer.name == task.request.transfer.name
                            && task.files[0].snapshot.difference(to: wanted.file) == nil
                    })
                else { continue }
                let found = wanted.remove(at: match)
                engine.goOn(found.id, from: checkpoint)
                document.tasks.removeAll { $0.id == task.id }
                taken = true
                lines.append(
                    "\(found.request.displayName) goes on with the upload hoist \(document.command) (pid \(document.pid)) kept: \(checkpoint.summary)"
                )
            }
            if taken { emptied.append((orphan, document)) }
        }
        guard !emptied.isEmpty else { return lines }
        // This run's journal holds the checkpoints before the old ones drop them.
        journal.sync()
        for (orphan, document) in emptied {
            if document.tasks.isEmpty, document.workspace == nil {
                orphan.discard()
            } else {
                try? orphan.replace(with: document)
            }
        }
        return lines
    }
}
