import Foundation
import Glibc
import Receiver
import TestSupport
import Testing

@testable import hoist

/// The history holds ends, not pauses (issue 37 #8): a send stopped by
/// Ctrl-C and resumed leaves one ✔ per file, and `--failed` and `--since`
/// pick what a user looks for.
@Suite(.serialized) struct HistoryFilterTests {
    @Test func anInterruptedSendThatIsResumedLeavesOneEntryPerFile() async throws {
        try await withReceiver { receiver, _ in
            let home = TemporaryDirectory()
            let environment = ResumeCommandTests.environment(home)
            for name in ["a", "b", "c"] { _ = home.file("\(name).bin", Array(repeating: 1, count: 1000)) }
            // Each answer is held 1.5 s: the first is on its way when Ctrl-C comes.
            let url = receiver.baseURL + "/upload?delay=1500"
            let send = try Subprocess(
                hoistBinary, ["send", url, "--each", "file=@\(home.path)/*.bin", "-s", "--concurrency", "1"],
                environment: hoistEnvironment(environment))
            try await JournalTests.waitUntil("the first upload on the server") {
                receiver.requestCount >= 1 && JournalTests.journals(home.path).count == 1
            }
            kill(send.pid, SIGINT)
            let stopped = await send.result()
            // 0 when a loaded machine delivered the signal after the last answer.
            #expect([130, 0].contains(stopped.status), "\(stopped.stderr)")
            let resumed = try await hoist(["resume", "-s"], environment: environment)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            let failed = try await hoist(
                ["send", receiver.baseURL + "/upload?status=500", "-s", "--retries", "0", "-F", "a=b"],
                environment: environment)
            #expect(failed.status == 1)

            let all = try await hoist(["history", "--json"], environment: environment)
            let entries = try all.stdoutLines.map(jsonObject)
            #expect(entries.count == 4, "one entry each: \(all.stdout)")
            let sent = entries.filter { ($0["url"] as? String)?.hasSuffix("delay=1500") == true }
            #expect(sent.compactMap { $0["name"] as? String }.sorted() == ["a.bin", "b.bin", "c.bin"])
            #expect(!all.stdout.contains("interrupted"), "\(all.stdout)")
            #expect(entries.filter { $0["outcome"] as? String == "succeeded" }.count == 3)
            #expect(entries.filter { $0["outcome"] as? String == "failed" }.count == 1)

            let onlyFailed = try await hoist(["history", "--failed"], environment: environment)
            #expect(onlyFailed.status == 0)
            #expect(onlyFailed.stdoutLines.count == 2, "the line and its error: \(onlyFailed.stdout)")
            #expect(onlyFailed.stdoutLines.first?.contains("✘ 500  POST") == true, "\(onlyFailed.stdout)")
            let recent = try await hoist(["history", "--since", "1h", "--json"], environment: environment)
            #expect(recent.stdoutLines.count == 4)
            let future = try await hoist(["history", "--since", "2099-01-01"], environment: environment)
            #expect(future.status == 0 && future.stdout.isEmpty)
            #expect(future.stderr.contains("no upload in the history matches"))
            let bad = try await hoist(["history", "--since", "yesterday"], environment: environment)
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--since \"yesterday\": give a time ago (30m, 12h, 1d, 2w) or a UTC date"))
        }
    }

    @Test func sinceReadsTimesAgoAndDates() throws {
        let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T11:06:40Z
        #expect(try HistorySince.parse("90m", now: now) == "2026-11-18T09:36:40Z")
        #expect(try HistorySince.parse("1d", now: now) == "2026-11-17T11:06:40Z")
        #expect(try HistorySince.parse("2w", now: now) == "2026-11-04T11:06:40Z")
        #expect(try HistorySince.parse("2026-11-28", now: now) == "2026-11-28T00:00:00Z")
        #expect(try HistorySince.parse("2026-11-28T09:00:00Z", now: now) == "2026-11-28T09:00:00Z")
        for bad in ["", "d", "-1d", "1y", "28/11/2026", "2026-11-28 09:00"] {
            #expect(throws: BadInput.self) { try HistorySince.parse(bad, now: now) }
        }
    }
}
