import Dispatch
import FormData
import Glibc
import TerminalUI
import UploadEngine
import UploadPlan

/// The full-screen program: the pure model and update from TerminalUI,
/// wired to a real UploadEngine and the file system. CursesTerminal runs it
/// on the main thread; engine events and file reads come back through the
/// mailbox, which wakes the loop.
final class UploadManagerApp: TerminalProgram {
    private(set) var model: AppModel
    let engine: UploadEngine
    let mailbox: Mailbox
    private var dirty = true
    private let io = DispatchQueue(label: "hoist.ui.files")
    /// What the history must mask, as the user has marked it.
    let secretNames: SecretNames
    /// Keeps unfinished tasks and the staging area on disk (not in the demo).
    let journal: JournalRecorder?
    /// The profile loaded last, so "save as profile" writes its `${VAR}`s back as such.
    let loadedProfile: Locked<Profile?>

    init(
        model: AppModel, engine: UploadEngine, mailbox: Mailbox, secretNames: SecretNames = SecretNames(),
        journal: JournalRecorder? = nil, profile: Profile? = nil
    ) {
        self.loadedProfile = Locked(profile)
        self.model = model
        self.engine = engine
        self.mailbox = mailbox
        self.secretNames = secretNames
        self.journal = journal
        self.model.journaled = journal != nil
    }

    func start(size: Size, wake: @escaping @Sendable () -> Void) {
        mailbox.setWake(wake)
        model.size = size
        wake()  // deliver anything posted before the loop began
    }

    func handle(_ input: TerminalInput) -> Bool {
        dirty = true
        switch input {
        case .key(let key): return send(.key(key))
        case .resize(let size): return send(.resize(size))
        case .signal: return send(.interrupted)
        case .tick: return true
        case .wake:
            for message in mailbox.drain() where !send(message) { return false }
            return true
        }
    }

    /// A message before the loop starts, e.g. the demo's first `U`.
    func handleInitial(_ message: Message) {
        _ = send(message)
    }

    var needsRedraw: Bool { dirty }

    func render(into grid: inout Grid) {
        model.now = .now
        Screen.render(model, into: &grid)
        dirty = false
    }

    /// While uploads run or wait to retry, a tick a second keeps ETAs,
    /// elapsed times and retry countdowns moving.
    var tickInterval: Duration? {
        model.tasks.totals.running + model.tasks.totals.retrying > 0 ? .seconds(1) : nil
    }

    /// Runs `update` and carries out its effects. False once the app should end.
    private func send(_ message: Message) -> Bool {
        for effect in model.update(message) {
            if !perform(effect) { return false }
        }
        switch message {
        case .key, .staged: journal?.setWorkspace(JournalWorkspace(model))
        default: break
        }
        return !model.quitting
    }

    private func perform(_ effect: Effect) -> Bool {
        switch effect {
        case .upload(let requests, let chained):
            secretNames.value = Set(model.entries.filter(\.isSecret).map(\.name))
            var ids: [TaskID] = []
            if chained {
                // All links or none: a chain missing one would send the back of a card without its front.
                do {
                    ids = try engine.add(batch: requests, after: [nil] + requests.indices.dropLast().map { $0 })
                } catch {
                    mailbox.post(.uploadRefused("the chain: \(error)"))
                }
            } else if let added = try? engine.add(batch: requests) {
                // One hop to the engine for all of them, the files checked on all cores.
                ids = added
            } else {
                // The batch adds nothing when one is bad: add the rest alone, and name each bad one.
                for request in requests {
                    do { ids.append(try engine.add(request)) } catch {
                        mailbox.post(.uploadRefused("\(request.displayName): \(error)"))
                    }
                }
            }
            // The engine does not add an upload that is already queued or running: say so.
            let known = Set(model.tasks.order)
            var seen: Set<TaskID> = []
            let again = ids.filter { known.contains($0) || !seen.insert($0).inserted }.count
            if again > 0 {
                let added = ids.count - again
                mailbox.post(
                    .notice(
                        Notice(
                            "queued \(Target.count(added, "task")), \(again) already queued or running (not added again)"
                        )))
            }
        case .cancel(let ids): engine.cancel(ids)
        case .pauseTask(let id): engine.pause(id)
        case .retry(let id): engine.retry(id)
        case .move(let id, let move): engine.move(id, move)
        case .pause: engine.pause()
        case .resume: engine.resume()
        case .setConcurrency(let limit): engine.concurrencyLimit = limit
        case .setLimitRate(let rate): engine.limitRate = rate
        case .list(let directory):
            io.async { [mailbox] in mailbox.post(FileSystem.list(directory)) }
        case .stage(let paths, let field):
            io.async { [mailbox] in mailbox.post(FileSystem.stage(paths, field: field, folders: true)) }
        case .loadHistory:
            io.async { [mailbox] in mailbox.post(FileSystem.history()) }
        case .resumeInterrupted:
            // A file touched since the restore is flagged, not sent.
            let changed = journal?.changedFiles() ?? [:]
            engine.resumeInterrupted(flagging: changed)
            if !changed.isEmpty {
                let n = changed.count
                mailbox.post(
                    .notice(
                        Notice(
                            "\(n) left alone: a file changed since it was queued (r sends \(n == 1 ? "it" : "them") anyway, c drops \(n == 1 ? "it" : "them"))",
                            isError: true)))
            }
        case .loadProfiles:
            io.async { [mailbox] in
                do {
                    mailbox.post(.profilesLoaded(try Profile.summaries(), path: Profile.path, error: nil))
                } catch {
                    mailbox.post(.profilesLoaded([], path: Profile.path, error: "\(error)"))
                }
            }
        case .applyProfile(let name):
            let current = model.target
            io.async { [mailbox, loadedProfile] in
                do {
                    let profile = try Profile.load(name)
                    // Its target settings over the current ones, its fields and headers instead of the current ones.
                    let target = profile.settings.applied(to: current)
                    loadedProfile.value = profile
                    mailbox.post(
                        .profileLoaded(
                            name: name, target: target, entries: profile.settings.entries,
                            concurrency: profile.settings.has("concurrency") ? target.concurrency : nil))
                } catch {
                    mailbox.post(.notice(Notice("\(error)", isError: true)))
                }
            }
        case .saveProfile(let name, let target, let entries):
            io.async { [mailbox, loadedProfile] in
                do {
                    try Profile.save(name: name, target: target, entries: entries, origin: loadedProfile.value)
                    mailbox.post(.profileSaved(name: name, path: Profile.path, error: nil))
                } catch {
                    mailbox.post(.profileSaved(name: name, path: Profile.path, error: "\(error)"))
                }
            }
        case .quit:
            // The tasks are stopped once the screen is gone (`UISession.run`).
            return false
        }
        return true
    }
}

/// The file-system reads the UI asks for, answered as messages.
enum FileSystem {
    static func history(_ store: HistoryStore = HistoryStore(path: HistoryStore.defaultPath())) -> Message {
        do {
            let (items, unreadable) = try store.items()
            return .historyLoaded(items, error: store.skippedNote(unreadable))
        } catch {
            return .historyLoaded([], error: "\(error)")
        }
    }

    static func list(_ directory: String) -> Message {
        guard let dir = opendir(directory) else {
            return .listingFailed(
                directory: directory, error: "cannot open \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(dir) }
        var entries: [DirectoryEntry] = []
        while let entry = readdir(dir) {
            let name = FolderFiles.name(of: entry)
            if name == "." || name == ".." { continue }
            var info = stat()
            let path = (directory == "/" ? "" : directory) + "/" + name
            guard stat(path, &info) == 0 else { continue }  // a dangling link
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            entries.append(DirectoryEntry(name: name, isDirectory: isDirectory, size: Int64(info.st_size)))
        }
        return .listed(directory: directory, entries: entries)
    }

    /// Checks each path as the encoder will (exists, a regular file, readable)
    /// so a bad file is named now, not when its upload starts. With `folders`
    /// (the browser's marks, the UI's command line), a folder gives every file
    /// under it, named by its path in the folder (`2026/june/a.jpg`), hidden
    /// files and symbolic links left out, and a path that is not there is
    /// read as a glob (`photos/**/*.jpg`); else a folder is refused.
    static func stage(_ paths: [String], field: String = "file", folders walks: Bool = false) -> Message {
        var staged: [StagedFile] = []
        var problems: [String] = []
        var folders: [String] = []
        func add(_ path: String, filename: String?) {
            do {
                let snapshot = try FileSnapshot.regularFile(path: path, field: field)
                // An image's pixels from its header, for the Files pane; other files are not opened.
                let pixels =
                    ImagePreparer.imageTypes.contains(MIMETypes.type(forFilename: path))
                    ? ImagePreparer.pixelSize(of: path) : nil
                var file = StagedFile(path: path, size: snapshot.size, fieldName: field, pixels: pixels)
                file.filename = filename
                staged.append(file)
            } catch {
                problems.append(error.description)
            }
        }
        for path in paths {
            var info = stat()
            let exists = stat(path, &info) == 0
            if walks, !exists, path.contains(where: { "*?[".contains($0) }) {
                let matches = (try? Glob.files(matching: path)) ?? []
                guard !matches.isEmpty else {
                    problems.append("no file matches \(path)")
                    continue
                }
                for match in matches { add(match.path, filename: match.relative) }
                folders.append("\(path): \(Target.count(matches.count, "file"))")
                continue
            }
            guard walks, exists, info.st_mode & S_IFMT == S_IFDIR else {
                add(path, filename: nil)
                continue
            }
            let walk = FolderFiles.walk(path)
            for file in walk.files { add(file.path, filename: file.relative) }
            let name = baseName(of: path) + "/"
            folders.append(
                "\(name): \(Target.count(walk.files.count, "file"))"
                    + (walk.leftOut.map { " (\($0))" } ?? ""))
        }
        return .staged(staged, problems: problems, folders: folders)
    }
}
