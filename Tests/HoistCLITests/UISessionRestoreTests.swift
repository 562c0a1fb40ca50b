import Foundation
import Glibc
import TestSupport
import Testing

@testable import hoist

/// What a UI leaves comes back where it is wanted. Staged files (issue 37
/// #5): after `q`, only to a UI on the same target; after a crash, to the
/// next UI, with `X` to discard them. The slots and bandwidth limit set live
/// (#10): to the next UI, unless its command line sets them.
@Suite(.serialized) struct UISessionRestoreTests {
    @Test func filesStagedBeforeAQuitWaitForTheirTarget() async throws {
        let home = TemporaryDirectory()
        try await Photos.make(width: 800, height: 600, at: home.path + "/身份证 正面.jpg")
        _ = home.file("card.bin", Array(repeating: 7, count: 100))
        let first = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/upload '身份证 正面.jpg'")
        try await first.waitFor("the staged file") { $0.text.contains("身份证 正面.jpg") }
        // Its own prepare settings come back too.
        try await first.press("I")
        try await first.waitFor("the prepare dialog") { $0.text.contains("Prepare images") }
        try await first.press("Tab")
        try await first.type("50")
        try await first.press("Enter")
        try await first.waitFor("the photo's own settings") { $0.text.contains("600×800 → 600×800 q50") }
        try await first.press("f")
        try await first.type("user_id")
        try await first.press("Tab")
        try await first.type("42")
        try await first.press("Enter")
        try await first.waitFor("the field") { $0.text.contains("user_id = 42") }
        try await first.press("q")
        try await first.waitFor("the shell again") { $0.text.contains("EXIT=0") }
        #expect(JournalTests.journals(home.path).count == 1)
        #expect(
            JournalTests.mode(JournalTests.journalFolder(home.path) + "/" + JournalTests.journals(home.path)[0])
                == 0o600)
        await first.kill()

        // Another target: the photo is not staged for it, and the notice says where it waits.
        let other = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/verify card.bin")
        var screen = try await other.waitFor("the other target's file") {
            $0.text.contains("card.bin") && $0.text.contains("waits for hoist tui on that target")
        }
        #expect(!screen.text.contains("身份证"), "\(screen.text)")
        #expect(!screen.text.contains("user_id"), "\(screen.text)")
        #expect(screen.text.contains("1 file staged earlier for http://127.0.0.1:9/upload"), "\(screen.text)")
        try await other.press("q")
        try await other.waitFor("the shell again") { $0.text.contains("EXIT=0") }
        await other.kill()
        // Each staging area waits for its own target.
        #expect(JournalTests.journals(home.path).count == 2)

        let same = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/upload")
        defer { Task { await same.kill() } }
        screen = try await same.waitFor("the staging area back") {
            $0.text.contains("身份证 正面.jpg") && $0.text.contains("user_id = 42")
                && $0.text.contains("600×800 → 600×800 q50")
        }
        #expect(screen.text.contains("1 staged file restored from an earlier hoist: X discards it"), "\(screen.text)")
        #expect(!screen.text.contains("card.bin"), "\(screen.text)")
        // Deleting the file and the field empties the staging area: its journal goes at quit.
        try await same.press("1", "d", "2", "d", "q")
        try await same.waitFor("the shell again") { $0.text.contains("EXIT=0") }
        #expect(JournalTests.journals(home.path).count == 1)
        #expect(try JournalTests.journal(home.path)?.workspace?.target.url == "http://127.0.0.1:9/verify")
    }

    @Test func filesStagedBeforeACrashComeBackToAnyTargetAndXDiscardsThem() async throws {
        let home = TemporaryDirectory()
        _ = home.file("a.bin", Array(repeating: 1, count: 100))
        _ = home.file("b.bin", Array(repeating: 2, count: 100))
        _ = home.file("mine.bin", Array(repeating: 3, count: 100))
        let first = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/upload a.bin b.bin")
        try await first.waitFor("the staged files") { $0.text.contains("a.bin") && $0.text.contains("b.bin") }
        // The terminal goes away: SIGHUP, not a quit.
        await first.kill()

        let second = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/verify mine.bin")
        defer { Task { await second.kill() } }
        var screen = try await second.waitFor("the files back") {
            $0.text.contains("a.bin") && $0.text.contains("b.bin") && $0.text.contains("mine.bin")
        }
        #expect(
            screen.text.contains("2 staged files restored from an earlier hoist: X discards them"), "\(screen.text)")
        try await second.press("X")
        screen = try await second.waitFor("the restored files gone") {
            !$0.text.contains("a.bin") && !$0.text.contains("b.bin")
        }
        #expect(screen.text.contains("mine.bin"), "\(screen.text)")
        #expect(screen.text.contains("discarded 2 files an earlier hoist had staged"), "\(screen.text)")
        // D clears what is left.
        try await second.press("D")
        screen = try await second.waitFor("nothing staged") { !$0.text.contains("mine.bin") }
        #expect(screen.text.contains("removed every staged file (1)"), "\(screen.text)")
    }

    @Test func theSlotsAndLimitSetLiveComeBackAfterAQuitAndAfterACrash() async throws {
        let home = TemporaryDirectory()
        _ = home.file("a.bin", Array(repeating: 1, count: 100))
        let first = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/upload a.bin")
        try await first.press("+", "+", "+", "+", "[")
        var screen = try await first.waitFor("8 slots and a limit") { $0.text.contains("running 0/8 ≤") }
        let limit = try #require(screen[0].firstRange(of: "≤").map { String(screen[0][$0.lowerBound...]) })
        try await first.press("q")
        try await first.waitFor("the shell again") { $0.text.contains("EXIT=0") }
        await first.kill()

        // After q, on another target.
        let second = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/other")
        screen = try await second.waitFor("the slots and limit back") { $0.text.contains("running 0/8 ≤") }
        #expect(screen[0].contains(limit + " ↺"), "\(screen[0]) shows \(limit)")
        #expect(screen[0].contains("↺"), "\(screen[0])")
        #expect(screen.text.contains("8 at once, \(limit) from the last session (↺)"), "\(screen.text)")
        // Changed again, then the terminal closes: SIGHUP, not a quit.
        try await second.press("-")
        try await second.waitFor("7 slots") { $0.text.contains("running 0/7 ≤") && !$0[0].contains("↺") }
        await second.kill()

        let third = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/other")
        try await third.waitFor("7 slots back") { $0.text.contains("running 0/7 ≤") }
        try await third.press("q")
        try await third.waitFor("the shell again") { $0.text.contains("EXIT=0") }
        await third.kill()

        // The command line wins over the last session.
        let fourth = try await JournalTests.startUI(home, arguments: "http://127.0.0.1:9/other --concurrency 2")
        defer { Task { await fourth.kill() } }
        screen = try await fourth.waitFor("the command line's slots") { $0.text.contains("running 0/2") }
        #expect(!screen[0].contains("↺"), "\(screen[0])")
    }
}
