import Foundation
import TestSupport
import Testing

/// `hoist send` on a terminal draws progress rows on stderr. They must
/// cost what fits on the screen, not what was queued.
@Suite(.serialized) struct ProgressRowsTests {
    /// 4,000 small files sent from a terminal, as a user runs `--each` on a
    /// folder. The rows kept every snapshot and sorted them at each tick:
    /// 10,000 files took 60-147 s instead of 2.3 s (release build), and this
    /// ran past its 120 s (debug build). Now it costs what the uploads cost:
    /// CPU time is checked, which a busy machine disturbs less than wall time.
    @Test func manyFilesSentFromATerminalTakeWhatTheUploadsTake() async throws {
        let files = TemporaryDirectory()
        let count = 4_000
        for index in 0..<count {
            _ = files.file(String(format: "f%05d.bin", index), Array(repeating: UInt8(index % 251), count: 512))
        }
        let work = TemporaryDirectory()
        try await withReceiver { receiver, _ in
            let tmux = try await Tmux.start(width: 120, height: 30, in: work)
            defer { Task { await tmux.kill() } }
            let command = [
                "XDG_STATE_HOME=\(work.path)", "/usr/bin/time", "-f", "'%e %U %S'", "-o", "took.txt",
                hoistBinary, "send", receiver.baseURL + "/upload", "--each", "'file=@\(files.path)/*.bin'",
                "--concurrency", "4", "--json", ">", "results.jsonl", ";", "echo", "exit=$?",
            ].joined(separator: " ")
            try await tmux.type(command)
            try await tmux.press("Enter")
            // The claim is CPU time (below); wall time only bounds the wait,
            // which the whole suite on two cores once took past 120 s.
            let screen = try await tmux.waitFor("the send to end", timeout: .seconds(300)) {
                $0.contains { $0.hasPrefix("exit=") }
            }
            #expect(screen.contains("exit=0"), "\(screen.joined(separator: "\n"))")
            // The last rows stay: the latest finished tasks and the totals.
            #expect(
                screen.contains { $0.hasPrefix("Total \(count)/\(count) done") }, "\(screen.joined(separator: "\n"))")
            #expect(screen.contains { $0.hasPrefix("f03999.bin") && $0.contains("done 200") })
            let results = try String(contentsOfFile: work.path + "/results.jsonl", encoding: .utf8)
            #expect(results.split(separator: "\n").filter { $0.contains("\"ok\":true") }.count == count)
            // Wall time, then CPU: user and system.
            let took = try String(contentsOfFile: work.path + "/took.txt", encoding: .utf8)
            let figures = took.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
            try #require(figures.count == 3, "\(took)")
            // A debug build alone: 8.4-9.3 s of CPU (the same before and after
            // the transfer registry); in full suite runs on two cores, up to 20.6 s.
            // The old rows spent minutes drawing.
            #expect(figures[1] + figures[2] < 40, "hoist send took \(took) (wall, user, system)")
        }
    }
}
