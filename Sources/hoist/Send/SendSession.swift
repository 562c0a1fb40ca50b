import Dispatch
import FormData
import Glibc
import TerminalUI
import UploadEngine
import WireRules

/// Runs a `SendPlan` on the engine and reports: live rows on a terminal,
/// response bodies or JSON lines on stdout, failures on stderr.
final class SendSession: UploadEventMonitor, @unchecked Sendable {
    /// The output, the history and the journal take turns on one thread:
    /// their work is small, and one thread wake-up per batch of events
    /// costs less than three (bench/README.md has the figures).
    private let monitorThread = DispatchQueue(label: "hoist.send.monitors")
    let queue: DispatchQueue
    /// What goes to stdout for each finished task.
    enum Output {
        /// The response body, as curl prints it.
        case bodies(BodyOutput)
        /// One JSON object per task (`--json`).
        case jsonLines
        /// A status line with the decoded JSON answer (the demo).
        case summary
    }

    private let plan: SendPlan
    private let output: Output
    private let verbose: Bool
    private let insecure: Bool
    private let progress: LiveProgress?
    private let history: HistoryRecorder?
    private let journalDirectory: String?
    /// Who writes the journal, for the notice when another hoist adopts it.
    private let journalCommand: String
    /// Set on `queue` once the results are in.
    private var closing = false

    init(
        plan: SendPlan, output: Output, verbose: Bool = false, insecure: Bool = false, showProgress: Bool = true,
        history: HistoryStore? = nil, journal: String? = nil, journalCommand: String = "send"
    ) {
        self.journalDirectory = journal
        self.journalCommand = journalCommand
        self.plan = plan
        queue = DispatchQueue(label: "hoist.send.output", target: monitorThread)
        let secrets = plan.secretFields.union(plan.secretHeaders)
        self.history = history.map { [monitorThread] in
            HistoryRecorder(store: $0, target: monitorThread, secretFields: { secrets })
        }
        self.output = output
        self.verbose = verbose
        self.insecure = insecure
        self.progress = showProgress && isatty(STDERR_FILENO) == 1 ? LiveProgress() : nil
    }

    /// Sends the plan's requests.
    func run() async -> ExitStatus {
        await run { engine, journal in
            let ids = try engine.add(batch: self.plan.requests, after: self.plan.after, priority: self.plan.priority)
            if let journal {
                for line in KeptUploads.goOn(ids, requests: self.plan.requests, engine: engine, journal: journal) {
                    printError("hoist: " + line)
                }
            }
            return nil
        }
    }

    /// Fills the engine with `populate` (paused, so nothing starts before it
    /// is done), then sends. `populate` returns the tasks to wait for, or
    /// `nil` for all of them; a task it leaves out (an interrupted one, say)
    /// counts as not sent.
    func run(populate: (UploadEngine, JournalRecorder?) throws -> [TaskID]?) async -> ExitStatus {
        let shown: [any UploadEventMonitor] =
            [self] + (history.map { [$0] } ?? []) + (progress.map { [$0] } ?? [])
        let journal = journalDirectory.flatMap { directory -> JournalRecorder? in
            do {
                return JournalRecorder(
                    store: try JournalStore(directory: directory), command: journalCommand, target: monitorThread,
                    downstream: shown
                ) { printError("hoist: \($0)") }
            } catch {
                printError("hoist: no journal, so these uploads could not be resumed after a crash: \(error)")
                return nil
            }
        }
        // The journal passes the events on: a result is printed only once
        // the journal has it on disk.
        let progress = self.progress
        let trace: (@Sendable (String) -> Void)? =
            verbose ? { @Sendable (line: String) in Self.printBetween(progress) { printError("hoist: " + line) } } : nil
        let engine = UploadEngine(
            configuration: .init(
                concurrency: plan.concurrency, insecure: insecure, limitRate: plan.limitRate,
                keepsFinishedTasks: false, digestsSentFiles: history != nil,
                trace: trace, keepsUnreachableUploads: journal != nil),
            monitors: journal.map { [$0] } ?? shown)
        engine.pause()
        history?.journaled = journal != nil
        if verbose {
            // The order tasks start in: --each keeps its patterns' order, a glob's matches by name.
            if plan.requests.count > 1 {
                let chained = plan.after.contains { $0 != nil }
                printError(
                    "hoist: \(plan.requests.count) tasks, in this order"
                        + (chained ? ", each after the one before succeeded" : "")
                        + (plan.priority == .normal ? ":" : ", at \(plan.priority) priority:"))
                for (index, request) in plan.requests.enumerated() {
                    printError("  \(index + 1). \(request.displayName)")
                }
            }
            for request in plan.requests {
                printError(
                    RequestDescription.lines(
                        for: request, secretFields: plan.secretFields, secretHeaders: plan.secretHeaders
                    ).joined(separator: "\n"))
            }
        }
        let waitFor: [TaskID]?
        do {
            waitFor = try populate(engine, journal)
        } catch {
            journal?.finish()  // first: what was adopted stays
            await engine.shutdown()
            printError("hoist: \(error)")
            return .badInput
        }
        // What Ctrl-C stops stays resumable in the journal; an answer on its way gets a moment.
        let interrupt = Interrupt {
            Task { await engine.stopAll(reason: UploadEngine.interruptedReason, grace: .seconds(3)) }
        }
        progress?.start()
        engine.resume()
        if let waitFor {
            for id in waitFor { _ = await engine.result(of: id) }
        } else {
            await engine.waitUntilIdle()
        }
        journal?.sync()
        queue.sync {}
        history?.flush()
        journal?.finish()
        progress?.stop()
        let interrupted = interrupt.fired
        interrupt.cancel()
        let tally = engine.tally()
        // What shutting down cancels (tasks left in the journal on purpose) is not a result.
        queue.sync { closing = true }
        await engine.shutdown()
        if interrupted {
            let left = tally.unfinished
            if left > 0 {
                let uploads = "\(left) unfinished upload\(left == 1 ? "" : "s")"
                printError(
                    journal == nil
                        ? "hoist: interrupted: \(uploads), not kept (--no-journal)"
                        : "hoist: interrupted: \(uploads) kept in the journal: hoist resume sends \(left == 1 ? "it" : "them")"
                            + " (or hoist, then R)")
            }
            return .interrupted
        }
        return tally.succeeded == tally.total ? .ok : .uploadFailed
    }

    /// Only finished tasks print anything; the live rows take their own events.
    func wants(_ event: UploadEvent) -> Bool {
        if case .finished = event { return true }
        return false
    }

    func handle(_ event: UploadEvent) { handle(batch: [event]) }

    /// The JSON lines of a batch go out in one `write`: one per task was a
    /// tenth of the system calls of 1,000 small uploads.
    func handle(batch events: [UploadEvent]) {
        guard !closing else { return }
        for case .finished(let task) in events { show(task) }
        flushLines()
    }

    /// JSON lines not written yet, when no live rows are drawn. On `queue`.
    private var lines: [UInt8] = []

    private func flushLines() {
        guard !lines.isEmpty else { return }
        writeOut(lines)
        lines = []
    }

    private func show(_ task: TaskSnapshot) {
        switch output {
        case .jsonLines where progress == nil:
            lines += ResultLine.json(for: task)
            lines.append(UInt8(ascii: "\n"))
        case .jsonLines:
            between { writeOut(ResultLine.json(for: task) + [UInt8(ascii: "\n")]) }
        case .summary:
            between { printLine(ResultLine.summary(for: task)) }
        case .bodies(let destination):
            if let body = task.response?.body, !body.isEmpty {
                between { destination.write(body, of: task) }
            }
        }
        if let failure = task.failure.map({ "\($0)" }) ?? cancellation(task) {
            // A connection refused four times is not the same news as once.
            let attempts = task.failure != nil && task.attempts > 1 ? " (after \(task.attempts) attempts)" : ""
            flushLines()  // stdout and stderr in the order they happened
            // What the failure left on the server (an aborted multipart upload).
            let note = task.failure != nil ? task.note.map { "; " + TerminalText.escaped($0) } ?? "" : ""
            between { printError("hoist: \(task.id) \(task.request.displayName): \(failure)\(attempts)\(note)") }
        }
    }

    /// Prints between progress redraws, or at once when there are no rows.
    private func between(_ body: () -> Void) {
        Self.printBetween(progress, body)
    }

    private static func printBetween(_ progress: LiveProgress?, _ body: () -> Void) {
        if let progress { progress.suspendWhile(body) } else { body() }
    }

    private func cancellation(_ task: TaskSnapshot) -> String? {
        if case .cancelled(let reason) = task.state { return UploadFailure.cancelled(reason) }
        return nil
    }
}

/// SIGINT and SIGTERM cancel the uploads instead of killing the process mid-write.
final class Interrupt: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private(set) var fired = false

    init(_ action: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in
                self?.fired = true
                action()
            }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        sources = []
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
