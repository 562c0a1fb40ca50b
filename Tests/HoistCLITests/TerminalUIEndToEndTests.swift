import Foundation
import Receiver
import TestSupport
import Testing

/// The real `hoist` binary in tmux against the Receiver: keys in, screen out.
@Suite(.serialized) struct TerminalUIEndToEndTests {
    /// The colour parameters (30-38, 40-48, 90-107: not 39 and 49, the default colours) in a
    /// screen captured with `capture-pane -e`.
    static func colourCodes(_ styled: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: "\u{1B}\\[([0-9;]*)m")
        let range = NSRange(styled.startIndex..., in: styled)
        return regex.matches(in: styled, range: range).flatMap { match -> [String] in
            let parameters = String(styled[Range(match.range(at: 1), in: styled)!])
            return parameters.split(separator: ";").compactMap { Int($0) }
                .filter { (30...48).contains($0) && $0 != 39 || (90...107).contains($0) }.map(String.init)
        }
    }

    /// NO_COLOR turns the UI's colours off (attributes stay); `[` sets a bandwidth limit the top bar shows.
    @Test func noColorAndTheBandwidthLimitKeys() async throws {
        var colours: [String: [String]] = [:]
        for noColor in ["", "1"] {
            // A home each: the second UI would start with the limit the first set (↺).
            let work = TemporaryDirectory()
            _ = work.file("a.bin", [1, 2, 3])
            let tmux = try await Tmux.start(width: 100, height: 30, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type("NO_COLOR=\(noColor) \(hoistBinary) tui http://127.0.0.1:9/upload a.bin")
            try await tmux.press("Enter")
            try await tmux.waitFor("the UI") { $0.text.contains("Hoist") && $0.text.contains("a.bin") }
            try await tmux.press("[")
            let screen = try await tmux.waitFor("the limit in the top bar") {
                $0.first?.contains("▶ running 0/4 ≤8.00 MiB/s") == true
            }
            #expect(screen.text.contains("limit 8.00 MiB/s over every upload ([ lowers, ] raises)"))
            let styled = try await tmux.styledScreen()
            #expect(styled.contains("\u{1B}[7m") || styled.contains(";7m"), "reverse video stays either way")
            colours[noColor] = Self.colourCodes(styled)
            try await tmux.press("q")
        }
        #expect(!(colours[""] ?? []).isEmpty, "colours without NO_COLOR")
        #expect(colours["1"] == [], "none with NO_COLOR=1: \(colours["1"] ?? [])")
    }

    /// A folder marked in the browser stages every file under it, named by its path in the folder.
    @Test func aMarkedFolderIsStagedWholeAndSentWithRelativeNames() async throws {
        try await withReceiver { receiver, saved in
            let work = FolderSendTests.tree()
            let tmux = try await Tmux.start(width: 120, height: 40, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type("\(hoistBinary) tui \(receiver.baseURL)/upload")
            try await tmux.press("Enter")
            try await tmux.waitFor("the UI") { $0.text.contains("no files yet") }
            try await tmux.press("a")
            try await tmux.waitFor("the browser") { $0.text.contains("photos/") }
            try await tmux.press("Down", "Space")
            try await tmux.waitFor("the folder marked") { $0.text.contains("● photos/") }
            try await tmux.press("a")
            let screen = try await tmux.waitFor("the folder staged") {
                $0.text.contains("staged 3 files · photos/: 3 files (2 hidden, 2 symbolic links left out)")
            }
            #expect(screen.text.contains("2026/june/a.jpg") && screen.text.contains("2026/身份证 正面.jpg"))
            try await tmux.press("u")
            try await tmux.waitFor("three uploads done") { $0.text.contains("✔ 3") }
            #expect(JournalTests.savedHashes(saved).count == 3)
            try await tmux.press("q")
        }
    }

    /// `q`, `y` while an answer is on its way: it is waited for and recorded
    /// as done, so the next start has nothing to send again (issue 37 #1).
    @Test func anAnswerOnItsWayWhenTheUIQuitsIsRecordedAsDone() async throws {
        try await withReceiver { receiver, _ in
            let work = TemporaryDirectory()
            _ = work.file("a.bin", [1, 2, 3])
            let tmux = try await Tmux.start(width: 100, height: 30, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type("\(hoistBinary) tui '\(receiver.baseURL)/upload?delay=2500' a.bin; echo EXIT=$?")
            try await tmux.press("Enter")
            try await tmux.waitFor("the UI") { $0.text.contains("a.bin") }
            try await tmux.press("u")
            try await JournalTests.waitUntil("the request on the server") { receiver.requestCount >= 1 }
            try await Task.sleep(for: .milliseconds(300))  // the answer is held 2.5 s: the body is on the server
            try await tmux.press("q")
            try await tmux.waitFor("the quit dialog") { $0.text.contains("1 upload is not finished") }
            try await tmux.press("y")
            try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }
            let resume = try await hoist(["resume"], environment: ["HOME": work.path])
            #expect(resume.stderr.contains("nothing to resume"), "\(resume.stderr)")
            #expect(receiver.requestCount == 1)
        }
    }

    /// A folder or a glob on the command line is staged as the browser stages
    /// a folder (issue 37 #9): it was refused as a directory, or not found.
    @Test func aFolderAndAGlobOnTheCommandLineAreStaged() async throws {
        let work = FolderSendTests.tree()
        let tmux = try await Tmux.start(width: 120, height: 40, in: work)
        defer { Task { await tmux.kill() } }
        try await tmux.type("\(hoistBinary) tui http://127.0.0.1:9/upload photos 'photos/**/a.jpg'")
        try await tmux.press("Enter")
        let screen = try await tmux.waitFor("the folder and the glob staged") {
            $0.text.contains(
                "staged 4 files · photos/: 3 files (2 hidden, 2 symbolic links left out) · photos/**/a.jpg: 1 file")
        }
        #expect(screen.text.contains("2026/june/a.jpg") && screen.text.contains("2026/身份证 正面.jpg"))
        #expect(screen.text.contains("1/4"), "\(screen.text)")
        try await tmux.press("q")
    }

    /// `hoist URL *.bin` over a folder of 10,000 files: one word per file for
    /// the parser, whose work grows with the square of the words (1.7 s for
    /// 10,000 in a release build, about 17 s in this debug one); the words now
    /// reach it as one, in order, and the files show in 0.35 s.
    @Test func tenThousandFilesOnTheCommandLineAreStagedInOrder() async throws {
        let work = TemporaryDirectory()
        let folder = work.directory("many")
        for i in 0..<10_000 {
            FileManager.default.createFile(atPath: folder + String(format: "/f%05d.bin", i), contents: Data([1]))
        }
        let tmux = try await Tmux.start(width: 120, height: 30, in: work, subfolder: "many")
        defer { Task { await tmux.kill() } }
        let started = ContinuousClock.now
        try await tmux.type("\(hoistBinary) http://127.0.0.1:9/upload --concurrency 2 *.bin")
        try await tmux.press("Enter")
        // The fifth name too: a capture in the middle of a frame showed two (a fresh-clone CI run).
        let screen = try await tmux.waitFor("10,000 files staged", timeout: .seconds(60)) {
            $0.text.contains("/10000 ·") && $0.text.contains("f00004.bin")
        }
        let took = ContinuousClock.now - started
        let names = screen.compactMap { line in
            line.range(of: #"f\d{5}\.bin"#, options: .regularExpression).map { String(line[$0]) }
        }
        #expect(
            names.prefix(5) == ["f00000.bin", "f00001.bin", "f00002.bin", "f00003.bin", "f00004.bin"], "\(screen.text)")
        #expect(took < .seconds(8), "\(took)")
        try await tmux.press("q")
    }

    /// `U` queues every staged file in one batch; a file gone since it was
    /// staged is named, and the others still go.
    @Test func eachFileAsATaskWithOneFileGone() async throws {
        try await withReceiver { receiver, saved in
            let work = TemporaryDirectory()
            for name in ["a.bin", "gone.bin", "c.bin"] { _ = work.file(name, Array(name.utf8)) }
            let tmux = try await Tmux.start(width: 120, height: 30, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type("\(hoistBinary) tui \(receiver.baseURL)/upload a.bin gone.bin c.bin")
            try await tmux.press("Enter")
            try await tmux.waitFor("the UI") { $0.text.contains("Hoist") && $0.text.contains("c.bin") }
            try FileManager.default.removeItem(atPath: work.path + "/gone.bin")
            try await tmux.press("U")
            let screen = try await tmux.waitFor("two uploads done and the third refused") {
                $0.text.contains("✔ 2") && $0.text.contains("gone.bin: ")
            }
            #expect(JournalTests.savedHashes(saved).count == 2, "\(screen.text)")
            try await tmux.press("q")
        }
    }

    @Test func stageUploadWatchAndQuit() async throws {
        try await withReceiver(configure: { $0.readBytesPerSecond = 8 << 20 }) { receiver, _ in
            let work = TemporaryDirectory()
            var generator = SeededGenerator(state: 7)
            let front = randomBytes(150_000, using: &generator)
            let big = randomBytes(40 << 20, using: &generator)
            _ = work.file("身份证 正面.jpg", front)
            _ = work.file("big.bin", big)
            let tmux = try await Tmux.start(width: 120, height: 40, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type(
                "S=$(stty -g); \(hoistBinary) tui \(receiver.baseURL)/upload; E=$?; "
                    + "[ \"$(stty -g)\" = \"$S\" ] && T=TTY-\"\"RESTORED || T=TTY-\"\"CHANGED; echo EXIT=$E $T"
            )
            try await tmux.press("Enter")
            try await tmux.waitFor("the UI") { $0.text.contains("Hoist") && $0.text.contains("no files yet") }

            // Stage both files from the browser: mark each, then `a`.
            try await tmux.press("a")
            try await tmux.waitFor("the browser") { $0.text.contains("Add files") && $0.text.contains("big.bin") }
            try await tmux.press("Down", "Space", "Space", "a")
            var screen = try await tmux.waitFor("both files staged") {
                $0.text.contains("身份证 正面.jpg") && $0.text.contains("2 · 40.1 MiB")
            }
            #expect(screen.text.contains("image/jpeg"))

            // A field, then upload each file as its own task.
            try await tmux.press("f")
            try await tmux.type("user_id")
            try await tmux.press("Tab")
            try await tmux.type("42")
            try await tmux.press("Enter")
            try await tmux.waitFor("the field") { $0.text.contains("user_id = 42") }
            try await tmux.press("u")

            // Mid-upload, shrink to 80×24: the layout must fit, with every pane still there.
            try await tmux.waitFor("the big upload under way") {
                $0.text.contains("big.bin") && $0.text.contains("ETA")
            }
            try await tmux.resize(width: 80, height: 24)
            screen = try await tmux.waitFor("the 80×24 layout") { lines in
                lines.count >= 24 && lines[0].contains("Hoist") && lines.text.contains("Tasks")
                    && lines.text.contains("Response")
            }
            #expect(screen.prefix(24).allSatisfy { TextWidthProbe.columns($0) <= 80 })
            #expect(screen.text.contains("Files") && screen.text.contains("Fields"))

            try await tmux.resize(width: 120, height: 40)
            screen = try await tmux.waitFor("both uploads at 100%", timeout: .seconds(60)) { lines in
                lines.filter {
                    $0.contains("✔") && $0.contains("100%") && ($0.contains("身份证") || $0.contains("big.bin"))
                }.count >= 2
            }
            // Each task's response: the receiver's JSON, decoded, with the file's sha256
            // (the browser lists big.bin first, so it is task 1).
            try await tmux.press("3", "g", "4")
            try await tmux.waitFor("big.bin's status line") {
                $0.text.contains("Response · big.bin") && $0.text.contains("HTTP 200 OK")
            }
            try await tmux.press("G")
            screen = try await tmux.waitFor("big.bin's JSON with its sha256") {
                $0.text.contains(String(sha256(big).prefix(40)))
            }
            try await tmux.press("3", "j", "4", "G")
            screen = try await tmux.waitFor("身份证 正面.jpg's JSON with its sha256") {
                $0.text.contains(String(sha256(front).prefix(40)))
            }
            #expect(screen.text.contains("filename: \"身份证 正面.jpg\""))
            let uploads = receiver.requestCount
            #expect(uploads == 2)

            try await tmux.press("q")
            // One line says both, so the capture never falls between the exit status and the check.
            screen = try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0 TTY-") }
            // The tty modes are exactly as before, and the UI left the alternate screen.
            #expect(screen.text.contains("TTY-RESTORED"))
            #expect(!screen.text.contains("Tasks"))
        }
    }
}

/// Column count of a captured line (CJK counts two), without importing TerminalUI.
enum TextWidthProbe {
    static func columns(_ line: String) -> Int {
        line.unicodeScalars.reduce(0) { count, scalar in
            let v = scalar.value
            let wide =
                (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFF00...0xFF60).contains(v) || (0x1F300...0x1FAFF).contains(v)
            return count + (wide ? 2 : 1)
        }
    }
}

extension TerminalUIEndToEndTests {
    /// A profile with a success rule; the server answers 200 with RETCODE 1001: the task
    /// fails, and the Response pane leads with the server's message in Chinese.
    @Test func aFailedExpectationShowsTheServersMessage() async throws {
        try await withReceiver { receiver, _ in
            let work = TemporaryDirectory()
            _ = work.file("身份证 正面.jpg", [0xFF, 0xD8, 0xFF, 0xD9])
            let reply = #"{"RETCODE":"1001","RETMSG":"身份证号码格式错误"}"#
            let query = reply.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            _ = work.directory(".config")
            _ = work.directory(".config/hoist")
            _ = work.file(
                ".config/hoist/profiles.toml",
                text: """
                    [ocr]
                    url = "\(receiver.baseURL)/ocr?json=\(query)"
                    expect = ["RETCODE=0000"]
                    message = "RETMSG"
                    [[ocr.fields]]
                    name = "user_id"
                    value = "42"
                    """)
            let tmux = try await Tmux.start(width: 100, height: 30, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type("\(hoistBinary) tui --profile ocr '身份证 正面.jpg'")
            try await tmux.press("Enter")
            try await tmux.waitFor("the staged file and the profile") {
                $0.text.contains("profile ocr") && $0.text.contains("身份证 正面.jpg")
            }
            try await tmux.press("u")
            let screen = try await tmux.waitFor("the failure and its message") { $0.text.contains("✘ 身份证号码格式错误") }
            #expect(screen.text.contains(#"RETCODE = "1001", expected "0000""#))
            #expect(
                screen.contains { $0.contains("✘ 身份证 正面.jpg") && $0.contains("200") },
                "the row fails though the status was 200")
            #expect(receiver.requestCount == 1, "an expectation failure is not retried")
            try await tmux.press("q")
            try await tmux.waitFor("the shell again") { $0.text.contains("$ ") && !$0.text.contains("Tasks") }
        }
    }
}
