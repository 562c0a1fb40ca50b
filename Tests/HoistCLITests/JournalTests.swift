import Foundation
import Glibc
import Receiver
import TestSupport
import Testing

@testable import hoist

/// The crash-safe journal, for real: `hoist send` killed with SIGKILL, then
/// the UI started again in tmux, as a user would.
@Suite(.serialized) struct JournalTests {
    /// Where a hoist run with `HOME=home` keeps its journals.
    static func journalFolder(_ home: String) -> String { home + "/.local/state/hoist/journal" }

    /// One file per journal: its snapshot, or its log when it has none yet.
    static func journals(_ home: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: journalFolder(home))) ?? []
        return names.filter { $0.hasSuffix(".json") }
            + names.filter { $0.hasSuffix(".log") && !names.contains($0.dropLast(4) + ".json") }
    }

    /// The first journal as a later hoist reads it: its snapshot with its log replayed.
    static func journal(_ home: String) throws -> JournalDocument? {
        guard let file = journals(home).first else { return nil }
        let name = String(file.dropLast(file.hasSuffix(".json") ? 5 : 4))
        return try Orphan(directory: journalFolder(home), name: name, lock: -1).read()
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    /// The SHA-256 of every file the receiver saved.
    static func savedHashes(_ saved: TemporaryDirectory) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: saved.path)) ?? []
        return names.compactMap { FileManager.default.contents(atPath: saved.path + "/" + $0) }
            .map { sha256(Array($0)) }
    }

    /// Waits for `condition`, polling; fails after `timeout`.
    static func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw SubprocessError(message: "timed out waiting for \(what)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    static func startSend(_ arguments: [String], home: String) throws -> Subprocess {
        try Subprocess(
            hoistBinary, ["send"] + arguments,
            environment: hoistEnvironment(["HOME": home, "XDG_STATE_HOME": home + "/.local/state"]))
    }

    /// The UI in tmux, in `home` (which is also its HOME, so its state folder).
    static func startUI(_ home: TemporaryDirectory, arguments: String = "") async throws -> Tmux {
        let tmux = try await Tmux.start(width: 120, height: 40, in: home)
        try await tmux.type("\(hoistBinary) \(arguments); echo EXIT=$?")
        try await tmux.press("Enter")
        try await tmux.waitFor("the UI") { $0.text.contains("Hoist") && $0.text.contains("Tasks") }
        return tmux
    }

    /// The UI in `home`, once it shows the notice `adopted` and the tasks
    /// (`listed`), told to resume them all, and then `done`.
    static func resumeInUI(
        _ home: TemporaryDirectory, adopted: String, listed: String, done: ([String]) -> Bool
    ) async throws -> Tmux {
        let tmux = try await startUI(home)
        do {
            try await tmux.waitFor("the adopted tasks") { $0.text.contains(adopted) && $0.text.contains(listed) }
            try await tmux.press("R")
            try await tmux.waitFor("every resumed upload done", timeout: .seconds(90), done)
        } catch {
            await tmux.kill()
            throw error
        }
        return tmux
    }

    @Test func a100FileSendKilledMidwayIsResumedInTheUIAndEveryFileArrives() async throws {
        try await withReceiver(configure: { $0.latency = .milliseconds(60) }) { receiver, saved in
            let home = TemporaryDirectory()
            var generator = SeededGenerator(state: 100)
            var expected: Set<String> = []
            for i in 0..<100 {
                let bytes = randomBytes(10_000 + 131 * i, using: &generator)
                _ = home.file(String(format: "scan-%03d 扫描.bin", i), bytes)
                expected.insert(sha256(bytes))
            }
            let send = try Self.startSend(
                [
                    receiver.baseURL + "/upload", "--each", "file=@\(home.path)/scan-*.bin", "--concurrency", "4",
                    "-s", "--json",
                ],
                home: home.path)
            try await Self.waitUntil("20 uploads") { receiver.requestCount >= 20 }
            kill(send.pid, SIGKILL)
            let killed = await send.result()
            #expect(killed.status != 0)
            let answered = receiver.requestCount
            #expect(answered < 100, "the kill came too late to test anything")

            // One journal, private, holding what was not finished.
            let folder = Self.journalFolder(home.path)
            let journals = Self.journals(home.path)
            try #require(journals.count == 1)
            #expect(Self.mode(folder) == 0o700)
            #expect(Self.mode(folder + "/" + journals[0]) == 0o600)
            let document = try #require(try Self.journal(home.path))
            let tasks = document.tasks
            #expect(document.command == "send")
            // No task whose answer was printed is left to send again; only
            // those in flight at the kill may be both answered and listed.
            let printed = Set(
                String(decoding: killed.stdout, as: UTF8.self).split(separator: "\n").compactMap {
                    (try? jsonObject(String($0)))?["name"] as? String
                })
            #expect(printed.count > 0)
            #expect(Set(tasks.map(\.request.displayName)).isDisjoint(with: printed))
            // A task whose end was on disk but whose line the kill stopped is
            // in neither: finished, not to be sent again, just not printed.
            #expect(tasks.count <= 100 - printed.count)
            #expect(tasks.count >= 100 - answered)

            // The notice names the process; the Response pane's note alone also says "R resumes".
            // The tasks are listed a frame after the notice may be drawn: wait for both.
            let tmux = try await Self.resumeInUI(
                home, adopted: "interrupted uploads from hoist send (pid \(send.pid)): R resumes them",
                listed: "↯"
            ) { lines in
                lines.text.contains("✔ \(tasks.count) ") && !lines.text.contains("↯")
            }
            defer { Task { await tmux.kill() } }
            try await tmux.press("q")
            try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }

            // Every file arrived, byte for byte, at least once; none printed
            // before the kill arrived twice; and nothing is left to resume.
            let arrived = Set(Self.savedHashes(saved))
            #expect(expected.subtracting(arrived).isEmpty, "\(expected.subtracting(arrived).count) files never arrived")
            let savedNames = Set((try? FileManager.default.contentsOfDirectory(atPath: saved.path)) ?? [])
            let twice = printed.filter { savedNames.contains($0.replacingOccurrences(of: ".bin", with: "-1.bin")) }
            #expect(twice.isEmpty, "sent again after their answer was printed: \(twice.sorted())")
            #expect(receiver.requestCount >= 100)
            #expect(Self.journals(home.path).isEmpty)
        }
    }

    /// 6,000 tasks queued at once make about 3 MB of records, which go to the
    /// log in pieces of 1 MiB ahead of their commit: after a kill -9, the
    /// journal reads back whole and in order.
    @Test func aLargeBatchIsJournaledWholeThroughItsSpills() async throws {
        try await withReceiver(configure: { $0.latency = .seconds(60) }) { receiver, _ in
            let home = TemporaryDirectory()
            let folder = home.path + "/many"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for i in 0..<6000 {
                FileManager.default.createFile(atPath: folder + String(format: "/f%04d.bin", i), contents: Data([1]))
            }
            let send = try Self.startSend(
                [receiver.baseURL + "/upload", "--each", "file=@\(folder)/*.bin", "--concurrency", "1", "-s"],
                home: home.path)
            try await Self.waitUntil("6,000 tasks in the journal") {
                ((try? Self.journal(home.path))??.tasks.count ?? 0) == 6000
            }
            kill(send.pid, SIGKILL)
            _ = await send.result()
            let document = try #require(try Self.journal(home.path))
            #expect(document.tasks.count == 6000)
            #expect(Set(document.tasks.map(\.request.displayName)).count == 6000)
            let log = try #require(Self.journals(home.path).first)
            let size =
                (try? FileManager.default.attributesOfItem(atPath: Self.journalFolder(home.path) + "/" + log))?[
                    .size] as? Int
            #expect((size ?? 0) > 2 << 20, "the records made more than two pieces: \(size ?? 0) bytes")
        }
    }

    @Test func aVanishedOrChangedFileIsFlaggedAndNeverSentSilently() async throws {
        // 64 KiB/s: the first, big file is still on its way when hoist is killed.
        try await withReceiver(configure: { $0.readBytesPerSecond = 64 << 10 }) { receiver, saved in
            let home = TemporaryDirectory()
            let big = home.file("a-big.bin", Array(repeating: 1, count: 4 << 20))
            let changed = home.file("b-changed.bin", Array(repeating: 2, count: 1000))
            let fine = home.file("c-fine.bin", Array(repeating: 3, count: 1000))
            let send = try Self.startSend(
                [receiver.baseURL + "/upload", "--each", "file=@\(home.path)/*.bin", "--concurrency", "1", "-s"],
                home: home.path)
            try await Self.waitUntil("the journal with three tasks") {
                (try? Self.journal(home.path))??.tasks.count == 3
            }
            // The big one is on its way (the receiver counts a request as it arrives) when the kill cuts it short.
            try await Self.waitUntil("the big upload to reach the receiver") { receiver.requestCount >= 1 }
            kill(send.pid, SIGKILL)
            _ = await send.result()
            let before = receiver.requestCount
            unlink(big)
            let now = Array(repeating: UInt8(9), count: 1500)
            _ = home.file("b-changed.bin", now)
            _ = changed

            let tmux = try await Self.startUI(home)
            defer { Task { await tmux.kill() } }
            var screen = try await tmux.waitFor("the flags") {
                $0.text.contains("3 interrupted uploads") && $0.text.contains("2 with a file that vanished or changed")
            }
            #expect(screen.text.contains("changed"))
            try await tmux.press("R")
            // R resumes every task it will at once: with the clean one done and
            // nothing running or queued, the two left alone can no longer be sent.
            screen = try await tmux.waitFor("the clean one sent, the others left alone") {
                $0.text.contains("3 tasks  ✔ 1  ↯ 2")
            }
            #expect(screen.text.contains("left alone"))
            #expect(receiver.requestCount == before + 1)
            #expect(Self.savedHashes(saved).contains(sha256(Array(repeating: 3, count: 1000))))
            _ = fine

            // The vanished one, selected: its problem in the Response pane; c drops it.
            try await tmux.press("3", "g")
            screen = try await tmux.waitFor("the vanished file's problem") {
                $0.text.contains("! a-big.bin is gone since it was queued")
            }
            try await tmux.press("c")
            // The changed one: r sends it as it is now, on purpose.
            try await tmux.press("j")
            try await tmux.waitFor("the changed file's problem") {
                $0.text.contains("! b-changed.bin changed size since it was queued (1000 → 1500 bytes)")
            }
            try await tmux.press("r")
            screen = try await tmux.waitFor("the changed one sent") {
                $0.text.contains("✔ 2 ") && $0.text.contains("⊘ 1")
            }
            #expect(Self.savedHashes(saved).contains(sha256(now)))
            try await tmux.press("q")
            try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }
            #expect(Self.journals(home.path).isEmpty)
        }
    }

    @Test func cancelRetryAndQuitBringEveryTaskBackAndATouchedFileIsFlaggedAtR() async throws {
        // 64 KiB/s: both uploads are still on their way when hoist quits.
        try await withReceiver(configure: { $0.readBytesPerSecond = 64 << 10 }) { receiver, saved in
            let home = TemporaryDirectory()
            _ = home.file("a.bin", Array(repeating: 1, count: 512 << 10))
            _ = home.file("b.bin", Array(repeating: 2, count: 512 << 10))
            let first = try await Self.startUI(home, arguments: receiver.baseURL + "/upload a.bin b.bin")
            try await first.waitFor("the staged files") { $0.text.contains("a.bin") && $0.text.contains("b.bin") }
            try await first.press("u")
            try await first.waitFor("both on their way") { $0.text.contains("2 tasks") && $0.text.contains("↑ 2") }
            try await first.press("c")
            try await first.waitFor("one cancelled") { $0.text.contains("⊘ 1") }
            try await first.press("r")
            try await first.waitFor("the cancelled one retried") { $0.text.contains("↑ 2") }
            try await first.press("q")
            try await first.waitFor("the quit dialog") { $0.text.contains("2 uploads are not finished") }
            try await first.press("y")
            try await first.waitFor("the shell again") { $0.text.contains("EXIT=") }
            await first.kill()

            let second = try await Self.startUI(home)
            defer { Task { await second.kill() } }
            try await second.waitFor("both back, the retried one too") {
                $0.text.contains("2 interrupted uploads from hoist tui") && $0.text.contains("↯ 2")
            }
            // Touched while the UI is open: same size, a new modification time.
            try await Task.sleep(for: .milliseconds(20))
            try #require(utimes(home.path + "/a.bin", nil) == 0)
            let before = receiver.requestCount
            try await second.press("R")
            let screen = try await second.waitFor("b sent, a left alone") {
                $0.text.contains("✔ 1") && $0.text.contains("! a.bin")
            }
            #expect(screen.text.contains("a file changed since it was queued"), "\(screen.text)")
            #expect(receiver.requestCount == before + 1)
            #expect(Self.savedHashes(saved).contains(sha256(Array(repeating: 2, count: 512 << 10))))
        }
    }

    /// A journal as hoist wrote it before all of its JSON went through one
    /// writer: `hoist send -F user=42 -F file=@… -H 'X-Trace: 1' --retries 2`,
    /// killed mid-upload. Only the URL, the path, the pid and the file's stat
    /// are put in; the adoption must read the rest as it stands.
    static let earlierJournal = [
        #"{"version":1,"command":"send","pid":4242,"workspace":null,"tasks":[{"id":1,"priority":1,"#,
        #""request":{"url":"@URL@","method":"POST","headers":[{"name":"X-Trace","value":"1"}],"#,
        #""body":{"multipart":{"_0":{"boundary":"hoist-f2d261a38c20bb592a33fb186f38012f","parts":[{"name":"user","#,
        #""headers":[],"content":{"bytes":{"_0":[52,50]}}},{"name":"file","filename":"scan 扫描.bin","#,
        #""headers":[],"content":{"file":{"path":"@PATH@"}}}]}}},"timeouts":{"connect":[0,10000000000000000000],"#,
        #""idle":[1,11553255926290448384]},"retry":{"maxRetries":2,"baseDelay":[0,500000000000000000],"#,
        #""maxDelay":[1,11553255926290448384],"maxRetryAfter":[16,4852094820647174144],"retryableStatuses":[503,"#,
        #"504,408,429,500,502]},"success":{"expectations":[]},"label":"scan 扫描.bin"},"files":[{"path":"@PATH@","#,
        #""snapshot":{@SNAPSHOT@}}]}]}"#,
    ].joined()

    @Test func aJournalWrittenInTheEarlierFormatIsAdoptedAndResumed() async throws {
        try await withReceiver { receiver, saved in
            let home = TemporaryDirectory()
            let bytes = Array(repeating: UInt8(ascii: "x"), count: 3000)
            let file = home.file("scan 扫描.bin", bytes)
            var info = stat()
            try #require(stat(file, &info) == 0)
            let snapshot = [
                "\"size\":\(info.st_size)", "\"device\":\(info.st_dev)", "\"inode\":\(info.st_ino)",
                "\"modifiedSeconds\":\(info.st_mtim.tv_sec)", "\"modifiedNanoseconds\":\(info.st_mtim.tv_nsec)",
            ].joined(separator: ",")
            let journal = Self.earlierJournal.replacingOccurrences(of: "@URL@", with: receiver.baseURL + "/upload")
                .replacingOccurrences(of: "@PATH@", with: file).replacingOccurrences(of: "@SNAPSHOT@", with: snapshot)
            let folder = Self.journalFolder(home.path)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            _ = home.file(".local/state/hoist/journal/4242-0ld.json", Array(journal.utf8), mode: 0o600)

            let tmux = try await Self.resumeInUI(
                home, adopted: "1 interrupted upload from hoist send (pid 4242): R resumes it",
                listed: "1 task  ↯ 1"
            ) { $0.text.contains("1 task  ✔ 1") }
            defer { Task { await tmux.kill() } }
            #expect(Self.savedHashes(saved) == [sha256(bytes)])
            try await tmux.press("q")
            try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }
            #expect(Self.journals(home.path).isEmpty)
        }
    }

    @Test func anUnreadableJournalIsSetAsideNotDeleted() async throws {
        let home = TemporaryDirectory()
        let folder = Self.journalFolder(home.path)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = home.file(".local/state/hoist/journal/4242-dead.json", Array("{\"version\":1,\"tasks\":[{\"id\":".utf8))
        let tmux = try await Self.startUI(home)
        defer { Task { await tmux.kill() } }
        try await tmux.waitFor("the notice") { $0.text.contains("cannot read") && $0.text.contains("kept as") }
        #expect(FileManager.default.fileExists(atPath: folder + "/4242-dead.json.unreadable"))
        try await tmux.press("q")
        try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }
    }

    @Test func aFinishedSendLeavesNoJournalAndNoJournalMeansNone() async throws {
        try await withReceiver { receiver, _ in
            let home = TemporaryDirectory()
            let file = home.file("a.txt", Array("hello".utf8))
            let environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/.local/state"]
            var result = try await hoist(
                ["send", receiver.baseURL + "/upload", "-F", "file=@\(file)", "-s"], environment: environment)
            #expect(result.status == 0)
            #expect(FileManager.default.fileExists(atPath: Self.journalFolder(home.path)))
            #expect(Self.journals(home.path).isEmpty)
            let left = (try? FileManager.default.contentsOfDirectory(atPath: Self.journalFolder(home.path))) ?? ["?"]
            #expect(left.isEmpty)

            let other = TemporaryDirectory()
            result = try await hoist(
                ["send", receiver.baseURL + "/upload", "-F", "file=@\(file)", "-s", "--no-journal"],
                environment: ["HOME": other.path, "XDG_STATE_HOME": other.path + "/.local/state"])
            #expect(result.status == 0)
            #expect(!FileManager.default.fileExists(atPath: Self.journalFolder(other.path)))
        }
    }
}
