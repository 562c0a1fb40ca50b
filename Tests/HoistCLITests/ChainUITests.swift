import Foundation
import Glibc
import TestSupport
import Testing

/// The seed flow from the keyboard: the front of an ID card, then its back,
/// then a selfie, as a chain, in the order the user put them in; a failed
/// link and `r` on it, as a user sees them in tmux.
@Suite(.serialized) struct ChainUITests {
    @Test func aChainRunsInTheOrderShownAndRRunsTheFailedLinkAndWhatFollowed() async throws {
        // The first request gets a 503: the front fails (no retries), and the rest of the chain with it.
        try await withReceiver(configure: { $0.failFirst = 1 }) { receiver, saved in
            let work = TemporaryDirectory()
            for (index, name) in ["身份证 反面.jpg", "身份证 正面.jpg", "selfie.jpg"].enumerated() {
                _ = work.file(name, [0xFF, 0xD8, UInt8(index), 0xFF, 0xD9])
            }
            _ = work.directory(".config")
            _ = work.directory(".config/hoist")
            _ = work.file(
                ".config/hoist/profiles.toml",
                text: """
                    [card]
                    url = "\(receiver.baseURL)/verify?reply=verify"
                    field = "image"
                    retries = 0
                    expect = ["RETCODE=0000"]
                    """)
            let tmux = try await Tmux.start(width: 120, height: 32, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type("\(hoistBinary) tui --profile card '身份证 反面.jpg' '身份证 正面.jpg' selfie.jpg")
            try await tmux.press("Enter")
            try await tmux.waitFor("the staged files and the expectation") {
                $0.text.contains("selfie.jpg") && $0.text.contains("expect RETCODE=0000")
            }
            // Four + in one burst: four more slots, not one.
            try await tmux.type("++++")
            try await tmux.waitFor("8 slots") { $0.text.contains("▶ running 0/8") }

            // The front goes first: down to it, K moves it up; o twice makes u a chain.
            try await tmux.press("j", "K", "o", "o")
            let staged = try await tmux.waitFor("the chain mode, the front on top") {
                $0.text.contains(" chain │") && $0.text.contains("the order shown")
            }
            let front = try #require(staged.firstIndex { $0.contains("身份证 正面.jpg") })
            let back = try #require(staged.firstIndex { $0.contains("身份证 反面.jpg") })
            #expect(front < back, "\(staged.text)")

            try await tmux.press("u")
            let failed = try await tmux.waitFor("the failed link and the cancelled ones") {
                $0.text.contains("✘ 身份证 正面.jpg") && $0.text.contains("⊘ ╰ 身份证 反面.jpg")
                    && $0.text.contains("⊘ ╰ selfie.jpg")
            }
            #expect(receiver.requestCount == 1, "nothing went after the failed link: \(failed.text)")
            #expect(failed.text.contains("chain stopped: 身份证 正面.jpg failed: HTTP 503"), "\(failed.text)")
            #expect(!failed.text.contains("queued 3 tasks"), "\(failed.text)")
            // The cancelled link says why.
            try await tmux.press("3", "j")
            try await tmux.waitFor("the reason") { $0.text.contains("身份证 正面.jpg (task #1) failed") }

            // r on the failed link: it runs again, and the links it cancelled after it.
            try await tmux.press("g", "r")
            let done = try await tmux.waitFor("the whole chain sent") { $0.text.contains("✔ 3") }
            #expect(!done.text.contains("✘"), "\(done.text)")
            let order = ["身份证 正面.jpg", "身份证 反面.jpg", "selfie.jpg"].map { name -> Int64 in
                var info = stat()
                stat(saved.path + "/" + name, &info)
                return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            }
            #expect(order.allSatisfy { $0 > 0 } && order == order.sorted(), "saved in chain order: \(order)")
            try await tmux.press("q")
        }
    }
}

/// `hoist demo` shows the seed flow it grew from: the two ID-card photos
/// as a chain, front then back, to a route that answers like a
/// verification API, with the expectation set; the other samples beside them.
@Suite(.serialized) struct DemoTests {
    @Test func theDemoSendsTheIDCardAsAChainBesideTheOtherSamples() async throws {
        let work = TemporaryDirectory()
        let tmux = try await Tmux.start(width: 120, height: 34, in: work)
        defer { Task { await tmux.kill() } }
        try await tmux.type("\(hoistBinary) demo --large-size 8; echo EXIT=$?")
        try await tmux.press("Enter")
        // Five tasks and the large sample as a GCS object (gs://demo/samples/…).
        let screen = try await tmux.waitFor("every sample sent", timeout: .seconds(60)) { $0.text.contains("✔ 6") }
        #expect(screen.text.contains("✔ build-artifact.ta") && screen.text.contains("✔ GCS: build"), "\(screen.text)")
        #expect(screen.text.contains("expect RETCODE=0000"), "\(screen.text)")
        let front = try #require(screen.firstIndex { $0.contains("✔ 身份证 正面.jpg") }, "\(screen.text)")
        let back = try #require(screen.firstIndex { $0.contains("✔ ╰ 身份证 反面.jpg") }, "\(screen.text)")
        #expect(front + 1 == back, "the back hangs under the front")
        #expect(!screen.text.contains("╰ 合同") && !screen.text.contains("╰ photos"), "the others are not chained")
        #expect(screen.text.contains(#"RETCODE: "0000""#) && screen.text.contains(#"RETMSG: "成功""#))
        try await tmux.press("q")
        try await tmux.waitFor("the shell") { $0.text.contains("EXIT=0") }
    }
}

/// Managing a queue from the keyboard, as a user would in tmux: the queue
/// paused, the last file moved to the front, every task cancelled and
/// retried with one key each, then the queue let go: one slot, so the
/// server receives them in the order shown.
@Suite(.serialized) struct QueueKeysUITests {
    @Test func reorderCancelRetryAndClearTheQueue() async throws {
        try await withReceiver { receiver, saved in
            let work = TemporaryDirectory()
            for name in ["a.bin", "b.bin", "c.bin", "d.bin"] {
                _ = work.file(name, [UInt8](repeating: 7, count: 30_000))
            }
            let tmux = try await Tmux.start(width: 120, height: 32, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type(
                "XDG_STATE_HOME=\(work.path)/state \(hoistBinary) tui \(receiver.baseURL)/upload a.bin b.bin c.bin d.bin"
            )
            try await tmux.press("Enter")
            try await tmux.waitFor("the staged files") { $0.text.contains("d.bin") && $0.text.contains("running 0/4") }
            try await tmux.type("___")  // _ is - too; tmux would read "---" as an option
            try await tmux.press("p")
            try await tmux.waitFor("one slot, paused") { $0.text.contains("■ paused 0/1") }
            try await tmux.press("U")

            /// The Tasks pane's rows, top to bottom: the right half of the screen.
            func listed(_ lines: [String]) -> [String] {
                lines.compactMap { line in
                    let halves = line.components(separatedBy: "││")
                    guard halves.count == 2, halves[1].contains("[") else { return nil }
                    return ["a.bin", "b.bin", "c.bin", "d.bin"].first { halves[1].contains(" \($0) ") }
                }
            }
            let queued = try await tmux.waitFor("four queued") { listed($0) == ["a.bin", "b.bin", "c.bin", "d.bin"] }
            #expect(
                queued.filter { $0.contains("[") && $0.contains(" paused ") }.count == 4, "queued, and they say paused")
            // d to the front; then b down one: d a c b.
            try await tmux.press("3", "G", "T")
            try await tmux.waitFor("d first") { listed($0) == ["d.bin", "a.bin", "b.bin", "c.bin"] }
            try await tmux.press("g", "j", "j", "J")
            try await tmux.waitFor("b after c") { listed($0) == ["d.bin", "a.bin", "c.bin", "b.bin"] }

            // C cancels every unfinished task, A retries them: one key each.
            try await tmux.press("C")
            try await tmux.waitFor("all cancelled") {
                $0.text.contains("cancelling 4 tasks") && $0.text.contains("⊘ 4")
            }
            try await tmux.press("A")
            try await tmux.waitFor("all queued again") {
                $0.text.contains("retrying 4 tasks") && $0.text.contains("· 4")
            }
            try await tmux.press("p")
            try await tmux.waitFor("all sent", timeout: .seconds(30)) { $0.text.contains("✔ 4") }
            let order = ["d.bin", "a.bin", "c.bin", "b.bin"].map { name -> Int64 in
                var info = stat()
                stat(saved.path + "/" + name, &info)
                return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            }
            #expect(order.allSatisfy { $0 > 0 } && order == order.sorted(), "received in the order shown: \(order)")
            // D clears the list.
            try await tmux.press("D")
            try await tmux.waitFor("an empty list") {
                $0.text.contains("removed 4 finished tasks") && $0.text.contains("no uploads yet")
            }
            try await tmux.press("q")
        }
    }
}

/// History's Enter as a user meets it: files are staged already, so it
/// asks; `a` adds the earlier upload's file, marked, and `u` sends exactly
/// that upload again, not the rest.
@Suite(.serialized) struct HistoryRestageUITests {
    @Test func restagingAddsTheEarlierUploadMarkedAndUSendsOnlyIt() async throws {
        try await withReceiver { receiver, _ in
            let work = TemporaryDirectory()
            _ = work.file("身份证 正面.jpg", [0xFF, 0xD8, 0xFF, 0xD9])
            _ = work.file("other.bin", [1, 2, 3])
            let environment = ["HOME": work.path, "XDG_STATE_HOME": work.path + "/state"]
            let first = try await hoist(
                ["send", receiver.baseURL + "/ocr", "-F", "image=@\(work.path)/身份证 正面.jpg"], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")

            let tmux = try await Tmux.start(width: 120, height: 32, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type(
                "XDG_STATE_HOME=\(work.path)/state \(hoistBinary) tui \(receiver.baseURL)/elsewhere other.bin")
            try await tmux.press("Enter")
            try await tmux.waitFor("the staged file") { $0.text.contains("other.bin") }
            try await tmux.press("L")
            try await tmux.waitFor("the history") { $0.text.contains("身份证 正面.jpg") && $0.text.contains("/ocr") }
            try await tmux.press("Enter")
            try await tmux.waitFor("the question") { $0.text.contains("Stage again") && $0.text.contains("r  replace") }
            try await tmux.press("a")
            try await tmux.waitFor("the photo staged again, marked") {
                $0.text.contains("● 身份证 正面.jpg") && $0.text.contains("other.bin") && $0.text.contains("1 marked")
            }
            let before = receiver.requestCount
            try await tmux.press("u")
            try await tmux.waitFor("sent") { $0.text.contains("✔ 1") }
            #expect(receiver.requestCount == before + 1, "only the earlier upload went")
            try await tmux.press("q")
        }
    }
}
