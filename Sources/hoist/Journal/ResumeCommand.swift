import ArgumentParser
import Dispatch
import FoundationEssentials
import TerminalUI
import UploadEngine
import UploadPlan

/// `hoist resume`: what hoists that died left unfinished, sent from a script.
/// Their journals are adopted as the UI adopts them (each locked, an
/// unreadable one set aside); resumable transfers go on from their
/// checkpoint; a task whose file vanished or changed is named and left in the
/// journal, unsent.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Send what hoist processes that are gone left unfinished.",
        discussion: """
            Exit status: 0 when every resumed upload succeeded (or there was nothing to resume), \
            1 when one failed or a file vanished or changed since it was queued (that task is \
            not sent and stays in the journal), 130 when interrupted.
            """
    )

    @Flag(name: .customLong("list"), help: "Print what would be resumed; send nothing.")
    var list = false

    @Flag(
        help: ArgumentHelp(
            "Send nothing: end the uploads named (or every one, with --all) and free what the server holds for them (tus DELETE, S3 AbortMultipartUpload)."
        ))
    var discard = false

    @Flag(help: "With --discard: every upload the journals hold.")
    var all = false

    @Argument(
        help: ArgumentHelp("With --discard: the uploads, as --list numbers them (#3 or 3, or PID:3).", valueName: "id"))
    var ids: [String] = []

    @Flag(name: .customLong("json"), help: "One JSON object per task on stdout.")
    var json = false

    @Option(help: "Uploads at once.", transform: TargetValue.concurrency)
    var concurrency: Int = Target.defaultConcurrency

    @Option(
        name: .customLong("limit-rate"),
        help: ArgumentHelp("Bytes per second over all uploads, as curl takes it: 500K, 2M, 1G.", valueName: "rate"),
        transform: TargetValue.limitRate)
    var limitRate: Int64 = 0

    @Flag(name: [.customShort("s"), .customLong("silent")], help: "No progress rows.")
    var silent = false

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify TLS certificates.")
    var insecure = false

    @Flag(name: .customLong("no-history"), help: "Do not append the finished tasks to the history.")
    var noHistory = false

    func validate() throws {
        if discard, all == !ids.isEmpty {
            throw ValidationError("--discard takes the uploads to end (as --list numbers them) or --all")
        }
        if !discard, all || !ids.isEmpty { throw ValidationError("uploads are named only with --discard") }
        if discard, list { throw ValidationError("--list and --discard do not go together") }
    }

    func run() async throws {
        let directory = JournalStore.defaultDirectory()
        if list { return try listJournals(in: directory) }
        if discard { return try await discardUploads(in: directory) }
        let session = SendSession(
            plan: SendPlan(requests: [], concurrency: concurrency, limitRate: limitRate > 0 ? limitRate : nil),
            output: json ? .jsonLines : .bodies(try BodyOutput(path: nil)),
            insecure: insecure, showProgress: !silent,
            history: noHistory ? nil : HistoryStore(path: HistoryStore.defaultPath()), journal: directory,
            journalCommand: "resume")
        var flagged = false
        let status = await session.run { engine, journal in
            guard let journal else { throw BadInput("without a journal there is nothing to resume") }
            let adoption = JournalAdoption.run(
                recorder: journal, engine: engine, workspace: JournalWorkspace(target: Target(), entries: [], files: [])
            )
            for line in adoption.unreadable { printError("hoist: " + line) }
            for line in adoption.summary.lost { printError("hoist: cannot resume " + line) }
            guard adoption.summary.restored > 0 else {
                printError("hoist: nothing to resume")
                return []
            }
            printError(
                "hoist: resuming \(adoption.summary.restored) upload\(adoption.summary.restored == 1 ? "" : "s") from \(adoption.sources.joined(separator: ", "))"
            )
            engine.resumeInterrupted(flagging: journal.changedFiles())
            var resumed: [TaskID] = []
            for task in engine.snapshots() {
                if case .interrupted(let problem?) = task.state {
                    flagged = true
                    printError(
                        "hoist: \(task.id) not resumed: \(problem.replacing("\n", with: " ")) (it stays in the journal: hoist, then r, sends it anyway)"
                    )
                } else {
                    resumed.append(task.id)
                }
            }
            return resumed
        }
        throw ExitCode(status == .ok && flagged ? ExitStatus.uploadFailed.rawValue : status.rawValue)
    }

    /// `--discard`: the journals adopted as for a resume, the uploads named
    /// ended and freed on their servers; the others stay for a later resume.
    private func discardUploads(in directory: String) async throws {
        let session = SendSession(
            plan: SendPlan(requests: [], concurrency: concurrency, limitRate: nil),
            output: json ? .jsonLines : .bodies(try BodyOutput(path: nil)), insecure: insecure, showProgress: false,
            history: noHistory ? nil : HistoryStore(path: HistoryStore.defaultPath()), journal: directory,
            journalCommand: "resume")
        let outcome = Locked<[(RestoredID, String, UploadEngine.Discarded)]>([])
        var refused: String?
        let status = await session.run { engine, journal in
            guard let journal else { throw BadInput("without a journal there is nothing to discard") }
            let adoption = JournalAdoption.run(
                recorder: journal, engine: engine, workspace: JournalWorkspace(target: Target(), entries: [], files: [])
            )
            for line in adoption.unreadable { printError("hoist: " + line) }
            let restored = adoption.summary.ids
            guard !restored.isEmpty else {
                printError("hoist: nothing to discard")
                return []
            }
            let chosen: [RestoredID]
            do {
                chosen = all ? restored : try Self.choose(ids, from: restored)
            } catch {
                refused = "\(error)"
                return []
            }
            let names = Dictionary(uniqueKeysWithValues: engine.snapshots().map { ($0.id, $0.request.displayName) })
            let finished = DispatchSemaphore(value: 0)
            engine.discard(chosen.map(\.task)) { results in
                outcome.value = chosen.compactMap { id in
                    results[id.task].map { (id, names[id.task] ?? "", $0) }
                }
                finished.signal()
            }
            finished.wait()
            return []
        }
        if let refused { throw BadInput(refused) }
        var failed = false
        for (id, name, result) in outcome.value {
            let line = "#\(id.journal) \(name): \(result.text)"
            if result.freed {
                printError("hoist: discarded " + line)
            } else {
                failed = true
                printError("hoist: not discarded " + line + " (it stays in the journal)")
            }
        }
        guard status != .interrupted else { throw ExitCode(status.rawValue) }
        throw ExitCode(failed ? ExitStatus.uploadFailed.rawValue : ExitStatus.ok.rawValue)
    }

    /// The restored uploads `ids` name: `3`, `#3`, or `PID:3` when two
    /// journals both have a #3.
    static func choose(_ ids: [String], from restored: [RestoredID]) throws -> [RestoredID] {
        try ids.map { text in
            let bare = text.hasPrefix("#") ? String(text.dropFirst()) : text
            let parts = bare.split(separator: ":", omittingEmptySubsequences: false)
            guard let number = parts.last.flatMap({ Int($0) }), parts.count <= 2,
                parts.count == 1 || Int32(parts[0]) != nil
            else {
                throw BadInput("\(String(reflecting: text)) is not an upload as --list numbers them (3, #3 or PID:3)")
            }
            let pid = parts.count == 2 ? Int32(parts[0]) : nil
            let found = restored.filter { $0.journal == number && (pid == nil || $0.pid == pid) }
            guard !found.isEmpty else {
                throw BadInput("no upload #\(bare) in the journals: hoist resume --list shows them")
            }
            guard found.count == 1 else {
                let choices = found.map { "\($0.pid):\($0.journal)" }.joined(separator: " or ")
                throw BadInput("#\(number) names \(found.count) uploads, from different hoists: give \(choices)")
            }
            return found[0]
        }
    }

    /// Reads the journals without adopting them: they stay for a later resume.
    private func listJournals(in directory: String) throws {
        var count = 0
        for orphan in JournalStore.orphans(in: directory) {
            let document: JournalDocument
            do {
                document = try orphan.read()
            } catch {
                printError("hoist: \(error)")
                continue
            }
            for task in document.tasks {
                count += 1
                let problem = task.problemNow
                let line = ResumeListLine(task: task, document: document, problem: problem)
                if json { writeOut(Array((line.json + "\n").utf8)) } else { printLine(line.text) }
            }
        }
        if count == 0 { printError("hoist: nothing to resume") }
    }
}

/// One task of `hoist resume --list`.
struct ResumeListLine {
    var task: JournalTask
    var document: JournalDocument
    var problem: String?

    /// `#3  photo.jpg  → http://host/upload  from hoist send (pid 4242), resumes at 12 MiB of 200 MiB`
    var text: String {
        var line = "#\(task.id)  \(task.request.displayName)  → \(task.request.url)"
        line += "  from hoist \(document.command) (pid \(document.pid))"
        if task.priority != .normal { line += ", \(task.priority) priority" }
        if let checkpoint = task.checkpoint, let total = checkpoint.length {
            line += ", resumes at \(Format.bytes(checkpoint.offset)) of \(Format.bytes(total))"
        }
        if let problem { line += "\n    not resumable as it is: " + problem.replacing("\n", with: " ") }
        return line
    }

    var json: String {
        var members: [JSONValue.Member] = [
            .init("id", .number(String(task.id))),
            .init("name", .string(task.request.displayName)),
            .init("url", .string(task.request.url)),
            .init("method", .string(task.request.method.rawValue)),
            .init("files", .array(task.files.map { .string($0.path) })),
            .init("from", .string("hoist \(document.command) (pid \(document.pid))")),
            .init("priority", .string("\(task.priority)")),
        ]
        if let checkpoint = task.checkpoint {
            members.append(.init("resume_from", .number(String(checkpoint.offset))))
            if let total = checkpoint.length { members.append(.init("total_bytes", .number(String(total)))) }
            members.append(.init("upload_url", .string(checkpoint.uploadURL)))
        }
        members.append(.init("problem", problem.map(JSONValue.string) ?? .null))
        return JSONValue.object(members).compactJSON
    }
}
