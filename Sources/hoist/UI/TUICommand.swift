import ArgumentParser
import CLinux
import CursesTerminal
import Dispatch
import FoundationEssentials
import Glibc
import TerminalUI
import UploadEngine
import UploadPlan

/// `hoist` and `hoist tui [URL] [--profile NAME]`: the full-screen upload manager.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui",
        abstract: "Open the full-screen upload manager (the default when no command is given)."
    )

    @Argument(
        help: ArgumentHelp(
            "Where uploads go, e.g. https://api.example.com/upload (t changes it in the UI). "
                + "Without \"://\" it is taken as the first file.")
    )
    var url: String?

    @OptionGroup(title: "Target")
    var target: TargetOptions

    @Argument(help: "Files to stage at start.")
    var files: [String] = []

    /// The files `ArgumentRewriter` took out of the command line, in order.
    @Option(name: .customLong("file-list"), help: .hidden)
    var fileList: String?

    func run() async throws {
        // The words in command-line order: as parsed, or all taken out by `ArgumentRewriter`.
        var files = (url.map { [$0] } ?? []) + files + ArgumentRewriter.values(fileList)
        // `hoist tui --profile ocr front.jpg`: the first word is a file when it is not a URL.
        var url: String?
        if let first = files.first, first.contains("://") { url = files.removeFirst() }
        let loaded = try target.loadProfile()
        var flags = try target.settings()
        if let url {
            flags.url = try checked("URL") { () throws(TargetValueError) in try TargetValue.url(url) }
        }
        let settings = flags.over(loaded?.settings ?? TargetSettings())
        let initial = settings.target
        let status = try await UISession.run(
            target: initial, entries: settings.entries, files: files, profile: target.profile, loadedProfile: loaded,
            configuration: UploadEngine.Configuration(
                concurrency: initial.concurrency, insecure: target.insecure,
                limitRate: initial.bandwidthLimit, digestsSentFiles: true, keepsUnreachableUploads: true),
            history: HistoryStore(path: HistoryStore.defaultPath()), journal: JournalStore.defaultDirectory(),
            queueGiven: flags.has("concurrency") || flags.has("limit_rate"))
        throw ExitCode(status.rawValue)
    }
}

/// Opens the UI over a fresh engine and tears both down, whatever happens.
enum UISession {
    static func run(
        target: Target, entries: [FormEntry], files: [String], profile: String?, loadedProfile: Profile? = nil,
        startDirectory: String = FileManager.default.currentDirectoryPath,
        configuration: UploadEngine.Configuration, initialKeys: [Key] = [], alsoSend: [UploadRequest] = [],
        history: HistoryStore? = nil,
        journal journalDirectory: String? = nil, queueGiven: Bool = false
    ) async throws -> ExitStatus {
        // A session lives long and its bursts (10,000 files staged, then
        // queued) are freed soon after: buffers past 128 KiB are mapped
        // apart and given back when freed, instead of glibc raising that
        // bar to the largest buffer freed so far and keeping the rest.
        // bench/ui.sh's 10,000 files: 4 MB less at the peak.
        mallopt(M_MMAP_THRESHOLD, 128 << 10)
        let mailbox = Mailbox()
        let secretNames = SecretNames()
        // The history has a thread of its own: it hashes files of up to 64 MiB,
        // and the journal, which passes every event on to the screen, must not
        // wait behind that.
        let records = DispatchQueue(label: "hoist.ui.records")
        let recorder = history.map { HistoryRecorder(store: $0, target: records, secretFields: { secretNames.value }) }
        var shown: [any UploadEventMonitor] = [mailbox]
        if let recorder { shown.append(recorder) }
        var journal: JournalRecorder?
        var journalProblem: Notice?
        if let journalDirectory {
            do {
                journal = JournalRecorder(
                    store: try JournalStore(directory: journalDirectory), command: "tui", downstream: shown
                ) {
                    mailbox.post(.notice(Notice($0, isError: true)))
                }
            } catch {
                journalProblem = Notice(
                    "no journal, so unfinished uploads would not survive a crash: \(error)", isError: true)
            }
        }
        recorder?.journaled = journal != nil
        // The journal, when there is one, passes the events on: a task's end
        // only once it is on disk.
        let engine = UploadEngine(configuration: configuration, monitors: journal.map { [$0] } ?? shown)
        var model = AppModel(
            size: Size(width: 80, height: 24), target: target, profile: profile,
            startDirectory: startDirectory)
        model.entries = entries
        model.queue.concurrency = configuration.concurrency
        model.queue.limitRate = configuration.limitRate
        if !files.isEmpty {
            // A folder or a glob is staged as the browser stages it (issue 37 #9).
            let staging = FileSystem.stage(files, field: target.fileField, folders: true)
            guard case .staged(_, let problems, _) = staging else { return .badInput }
            guard problems.isEmpty else { throw BadInput(problems.joined(separator: "\n")) }
            _ = model.update(staging)
        }
        model.notice = journalProblem ?? model.notice
        if let journal {
            let adoption = JournalAdoption.run(recorder: journal, engine: engine, workspace: JournalWorkspace(model))
            model.notice = adoption.restore(into: &model) ?? model.notice
            // The slots and limit set live last time, unless the command line sets them now (issue 37 #10).
            if let live = adoption.workspace.live, !queueGiven {
                model.restoreLiveQueue(live)
                engine.concurrencyLimit = live.concurrency
                engine.limitRate = live.limitRate
                let limit = live.limitRate.map { ", ≤" + Format.rate(Double($0)) } ?? ", no limit"
                let text = "\(live.concurrency) at once\(limit) from the last session (↺)"
                model.notice = Notice(
                    [text, model.notice?.text].compactMap { $0 }.joined(separator: "; "),
                    isError: model.notice?.isError ?? false)
            }
            // What the command line staged is kept from the start, not from the first key.
            journal.setWorkspace(JournalWorkspace(model))
        }
        let app = UploadManagerApp(
            model: model, engine: engine, mailbox: mailbox, secretNames: secretNames, journal: journal,
            profile: loadedProfile)
        // Keys as a user would press them first (the demo starts its uploads so).
        for key in initialKeys { app.handleInitial(.key(key)) }
        if !alsoSend.isEmpty { _ = try? engine.add(batch: alsoSend) }
        // Curses wants one thread; the engine's own queues keep running meanwhile.
        let box = UncheckedBox(app)
        let result: Result<FrameStats, any Error> = await withCheckedContinuation { continuation in
            DetachedThread.start {
                continuation.resume(returning: Result { try CursesTerminal.run(box.value) })
            }
        }
        // Answers on their way get a moment; the rest stay in the journal.
        await engine.stopAll(reason: UploadEngine.quitReason, grace: .seconds(3))
        // After a failure too: what is unfinished stays. A signal is not a
        // quit: what is staged comes back to any target.
        journal?.finish(quit: (try? result.get()) != nil && !app.model.interrupted)
        await engine.shutdown()
        recorder?.flush()
        if case .success(let stats) = result { writeStats(stats) }
        if case .failure(let error) = result { throw BadInput("\(error)") }
        return app.model.interrupted ? .interrupted : .ok
    }
}

/// With `HOIST_UI_STATS=path`, what drawing cost is appended there as a JSON line (used by bench/ui.sh).
private func writeStats(_ stats: FrameStats) {
    guard let path = ProcessInfo.processInfo.environment["HOIST_UI_STATS"], !path.isEmpty else { return }
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    let line =
        JSONValue.object([
            .init("frames", .number(String(stats.frames))),
            .init("render_ms", .number(String(ms(stats.renderTime)))),
            .init("draw_ms", .number(String(ms(stats.drawTime)))),
            .init("cells", .number(String(stats.cellsWritten))),
        ]).compactJSON + "\n"
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    _ = Array(line.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// Hands the app to the UI thread, which is then its only user.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
