import Foundation
import Glibc
import Receiver
import TestSupport
import Testing
import UploadEngine

@testable import hoist

/// `hoist resume` from a script, and the journal's log read back as a
/// later hoist reads it.
@Suite(.serialized) struct ResumeCommandTests {
    static func environment(_ home: TemporaryDirectory) -> [String: String] {
        ["HOME": home.path, "XDG_STATE_HOME": home.path + "/.local/state"]
    }

    /// `hoist send` of `files`, killed before anything is answered (the
    /// receiver holds every answer back), leaving a journal behind.
    static func killedSend(
        _ url: String, files: [String], home: TemporaryDirectory, folder: String? = nil, options: [String] = []
    ) async throws {
        func base(_ file: String) -> String { String(file.dropLast(file.hasSuffix(".json") ? 5 : 4)) }
        let earlier = Set(JournalTests.journals(home.path).map(base))
        let send = try Subprocess(
            hoistBinary,
            ["send", url, "--each", "file=@\(folder ?? home.path)/*.bin", "-s", "--concurrency", "1"] + options,
            environment: hoistEnvironment(environment(home)))
        try await JournalTests.waitUntil("the journal with every task") {
            // This run's journal: not one that was there before (names sort by pid, not by age).
            guard let name = JournalTests.journals(home.path).map(base).first(where: { !earlier.contains($0) }) else {
                return false
            }
            let document = try? Orphan(directory: JournalTests.journalFolder(home.path), name: name, lock: -1).read()
            return document?.tasks.count == files.count
        }
        kill(send.pid, SIGKILL)
        _ = await send.result()
    }

    @Test func listShowsWhatWouldBeResumedAndSendsNothing() async throws {
        try await withReceiver(configure: { $0.latency = .seconds(30) }) { slow, _ in
            let home = TemporaryDirectory()
            let files = ["a", "b", "c"].map { home.file("\($0).bin", Array(repeating: 1, count: 1000)) }
            try await Self.killedSend(slow.baseURL + "/upload", files: files, home: home)
            unlink(files[1])

            let list = try await hoist(["resume", "--list", "--json"], environment: Self.environment(home))
            #expect(list.status == 0)
            let listed = try list.stdoutLines.map(jsonObject)
            #expect(listed.map { $0["name"] as? String } == ["a.bin", "b.bin", "c.bin"])
            #expect((listed[1]["problem"] as? String)?.hasPrefix("b.bin is gone since it was queued") == true)
            #expect(listed[0]["problem"] is NSNull)
            #expect((listed[0]["from"] as? String)?.hasPrefix("hoist send (pid ") == true)
            let text = try await hoist(["resume", "--list"], environment: Self.environment(home))
            #expect(text.stdout.contains("b.bin  → \(slow.baseURL)/upload"))
            #expect(text.stdout.contains("not resumable as it is: b.bin is gone since it was queued"))
            // --list sent nothing and left the journal where it was.
            #expect(try JournalTests.journal(home.path)?.tasks.count == 3)
        }
    }

    @Test func priorityOrdersWhatTwoKilledRunsLeft() async throws {
        let home = TemporaryDirectory()
        let low = TemporaryDirectory()
        let high = TemporaryDirectory()
        let port = try await withReceiver(configure: { $0.latency = .seconds(30) }) { slow, _ in
            let lows = ["a", "b"].map { low.file("\($0).bin", Array(repeating: 1, count: 100)) }
            try await Self.killedSend(
                slow.baseURL + "/upload", files: lows, home: home, folder: low.path, options: ["--priority", "low"])
            let highs = ["c", "d"].map { high.file("\($0).bin", Array(repeating: 2, count: 100)) }
            try await Self.killedSend(
                slow.baseURL + "/upload", files: highs, home: home, folder: high.path, options: ["--priority", "high"])
            return slow.port
        }
        let list = try await hoist(["resume", "--list"], environment: Self.environment(home))
        #expect(list.stdout.contains("a.bin  → ") && list.stdout.contains("), low priority"), "\(list.stdout)")
        #expect(list.stdout.contains("), high priority"), "\(list.stdout)")
        try await withReceiver(configure: { $0.port = port }) { _, _ in
            let resume = try await hoist(
                ["resume", "--json", "-s", "--no-history", "--concurrency", "1"], environment: Self.environment(home))
            #expect(resume.status == 0, "\(resume.stdout)\(resume.stderr)")
            let names = try resume.stdoutLines.map(jsonObject).map { $0["name"] as? String }
            #expect(names == ["c.bin", "d.bin", "a.bin", "b.bin"], "the high run's tasks first, each run in its order")
        }
        let bad = try await hoist(["send", "http://127.0.0.1:1/", "-F", "a=b", "--priority", "urgent"])

        #expect(bad.status == 2 && bad.stderr.contains("'high', 'normal' or 'low'"), "\(bad.stderr)")
    }

    /// `hoist resume --limit-rate` keeps to the budget as `hoist send` does.
    @Test func resumeKeepsToABandwidthLimit() async throws {
        let home = TemporaryDirectory()
        let folder = TemporaryDirectory()
        let file = folder.file("a.bin", Array(repeating: 3, count: 256 << 10))
        let port = try await withReceiver(configure: { $0.latency = .seconds(30) }) { slow, _ in
            try await Self.killedSend(slow.baseURL + "/upload", files: [file], home: home, folder: folder.path)
            return slow.port
        }
        try await withReceiver(configure: { $0.port = port }) { receiver, _ in
            let resume = try await hoist(
                ["resume", "--json", "-s", "--no-history", "--limit-rate", "64K"], environment: Self.environment(home))
            #expect(resume.status == 0, "\(resume.stderr)")
            let line = try jsonObject(try #require(resume.stdoutLines.first))
            // 256 KiB at 64 KiB/s: 4 s.
            #expect((line["duration_ms"] as? Int ?? 0) > 3_700, "\(line)")
            #expect(receiver.requestCount == 1)
        }
    }

    /// A UI that died with files staged and nothing sending left a journal
    /// too: `hoist resume` keeps its staging area for the next UI, and names
    /// only the run whose uploads it resumes.
    @Test func resumeNamesOnlyTheRunsItResumesAndKeepsAStagingArea() async throws {
        let home = TemporaryDirectory()
        let file = home.file("a.bin", Array(repeating: 4, count: 2000))
        let staged = home.file("staged.jpg", Array(repeating: 5, count: 100))
        let port = try await withReceiver(configure: { $0.latency = .seconds(30) }) { slow, _ in
            try await Self.killedSend(slow.baseURL + "/upload", files: [file], home: home)
            return slow.port
        }
        let ui = [
            #"{"version":2,"command":"tui","pid":4243,"sequence":1,"workspace":{"target":{"#,
            #""url":"http://127.0.0.1:9/upload","method":"POST","bodyKind":"multipart","expectations":[],"#,
            #""retries":3,"timeouts":{"connect":[0,10000000000000000000],"idle":[1,11553255926290448384]},"#,
            #""fileField":"file","concurrency":4,"transfer":"single","chunkSize":"auto","parallelParts":1,"#,
            #""s3":{"pathStyle":false,"partConcurrency":4}},"entries":[],"#,
            #""files":[{"path":"\#(staged)","field":"file"}]},"tasks":[]}"#,
        ].joined()
        _ = home.file(".local/state/hoist/journal/4243-de4d.json", Array(ui.utf8), mode: 0o600)
        try await withReceiver(configure: { $0.port = port }) { receiver, _ in
            let resume = try await hoist(
                ["resume", "--json", "-s", "--no-history"], environment: Self.environment(home))
            #expect(resume.status == 0, "\(resume.stderr)")
            #expect(resume.stderr.contains("resuming 1 upload from hoist send (pid "), "\(resume.stderr)")
            #expect(!resume.stderr.contains("hoist tui"), "\(resume.stderr)")
            #expect(receiver.requestCount == 1)
        }
        // The staging area waits for the next UI, in the journal the resume left.
        let left = try #require(try JournalTests.journal(home.path))
        #expect(left.workspace?.files.map(\.path) == [staged])
    }

    @Test func resumeOfAChangedFileExitsOneAndKeepsItInTheJournal() async throws {
        let home = TemporaryDirectory()
        let port = try await withReceiver(configure: { $0.latency = .seconds(30) }) { slow, _ in
            let files = [
                home.file("a.bin", Array(repeating: 1, count: 1000)),
                home.file("b.bin", Array(repeating: 2, count: 1000)),
            ]
            try await Self.killedSend(slow.baseURL + "/upload", files: files, home: home)
            return slow.port
        }
        _ = home.file("b.bin", Array(repeating: 9, count: 1500))  // resized after it was queued
        // The same port again, now a receiver that answers at once.
        try await withReceiver(configure: { $0.port = port }) { receiver, saved in
            let resume = try await hoist(
                ["resume", "--json", "-s", "--no-history"], environment: Self.environment(home))
            #expect(resume.status == 1, "\(resume.stdout)\(resume.stderr)")
            #expect(resume.stderr.contains("not resumed: b.bin changed size since it was queued (1000 → 1500 bytes)"))
            let lines = try resume.stdoutLines.map(jsonObject)
            #expect(lines.map { $0["name"] as? String } == ["a.bin"])
            #expect(lines.first?["ok"] as? Bool == true)
            #expect(receiver.requestCount == 1)
            #expect(JournalTests.savedHashes(saved) == [sha256(Array(repeating: 1, count: 1000))])
            // b stays for a later decision, in the journal of the resume that left it.
            let left = try #require(try JournalTests.journal(home.path))
            #expect(left.tasks.map(\.request.displayName) == ["b.bin"])
            #expect(left.command == "resume")
        }
        let empty = TemporaryDirectory()
        let nothing = try await hoist(["resume"], environment: Self.environment(empty))
        #expect(nothing.status == 0)
        #expect(JournalTests.journals(empty.path).isEmpty)
        #expect(nothing.stderr.contains("nothing to resume"))
    }

    // MARK: - The log, read back

    static func task(_ id: Int) -> JournalTask {
        var task = JournalTask(
            TaskSnapshot(
                id: TaskID(id),
                request: UploadRequest(url: "http://x/\(id)", body: .bytes(Array("x".utf8), contentType: "text/plain"))),
            files: [])
        task.id = id
        return task
    }

    static func line(_ sequence: Int, _ change: JournalRecord.Change) -> [UInt8] {
        if case .queued(let task) = change {
            return JournalRecord.line(sequence: sequence, change, written: Array(try! JSONEncoder().encode(task)))
        }
        if case .workspace(let workspace) = change {
            return JournalRecord.line(sequence: sequence, change, written: Array(try! JSONEncoder().encode(workspace)))
        }
        return JournalRecord.line(sequence: sequence, change)
    }

    @Test func theLogIsReplayedOverTheSnapshotAndATornLastRecordIsIgnored() throws {
        var log: [UInt8] = Self.line(0, .opened(command: "send", pid: 77))
        log += Self.line(1, .queued(Self.task(1)))
        log += Self.line(2, .queued(Self.task(2)))
        log += Self.line(3, .finished(id: 1))
        log += Self.line(4, .queued(Self.task(3)))
        let torn = Self.line(5, .finished(id: 2)).dropLast(6)
        var document = JournalDocument(command: "?", pid: 0)
        try document.replay(log: Data(log + torn))
        #expect(document.command == "send" && document.pid == 77)
        #expect(document.tasks.map(\.id) == [2, 3], "the torn finished record of 2 was never committed")

        // A snapshot that already includes records 1...3 skips them (a crash between snapshot and truncation).
        var snapshot = JournalDocument(command: "send", pid: 77)
        snapshot.sequence = 3
        snapshot.tasks = [Self.task(2)]
        try snapshot.replay(log: Data(log))
        #expect(snapshot.tasks.map(\.id) == [2, 3])

        // A bad record before the last is not a torn write: the journal is unreadable.
        var broken = JournalDocument(command: "?", pid: 0)
        #expect(throws: (any Error).self) {
            try broken.replay(log: Data(Self.line(1, .queued(Self.task(1))) + Array("{\"seq\":2,\n".utf8) + log))
        }
    }
}
