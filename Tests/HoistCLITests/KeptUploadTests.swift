import Foundation
import Glibc
import TestSupport
import Testing

@testable import hoist

/// What becomes of an upload an earlier run kept, against servers no one
/// here wrote: `hoist resume --discard` frees it on the server (issue 37
/// #3: a user never needs aws-cli to clean up after hoist), and a new
/// `hoist send` of the same file goes on with it (#4).
@Suite(.serialized) struct KeptUploadTests {
    /// `hoist send` of `size` random bytes, killed once its journal's checkpoint satisfies `until`.
    static func killedSend(
        _ arguments: [String], size: Int, home: TemporaryDirectory, environment: [String: String],
        until: @escaping (JournalTask) -> Bool
    ) async throws {
        let path = home.path + "/备份 big.bin"
        if !FileManager.default.fileExists(atPath: path) {
            let made = try await run("/bin/sh", ["-c", "head -c \(size) /dev/urandom > '\(path)'"])
            try #require(made.status == 0)
        }
        let send = try Subprocess(
            hoistBinary, ["send"] + arguments + ["-T", path, "-s", "--no-history"],
            environment: hoistEnvironment(environment))
        do {
            try await JournalTests.waitUntil("a checkpoint in the journal", timeout: .seconds(120)) {
                // The process is gone when its journal is (a loaded machine polls seldom): stop waiting.
                (try? JournalTests.journal(home.path))??.tasks.first.map(until) ?? (kill(send.pid, 0) != 0)
            }
        } catch {
            kill(send.pid, SIGKILL)
            let ended = await send.result()
            Issue.record("hoist send ended first: \(ended.status) \(String(decoding: ended.stderr, as: UTF8.self))")
            throw error
        }
        kill(send.pid, SIGKILL)
        let killed = await send.result()
        try #require(killed.status == 128 + SIGKILL, "it finished before the kill: \(killed.status)")
    }

    @Test func aKeptTusUploadIsDeletedOnTheServer() async throws {
        let peer = try await TusPeer.resumableUpload()
        defer { peer.stop() }
        let home = TemporaryDirectory()
        let environment = TusResumeTests.environment(home)
        try await Self.killedSend(
            ["--tus", peer.creationURL, "--chunk-size", "1M", "--limit-rate", "1M"], size: 16 << 20, home: home,
            environment: environment
        ) { ($0.checkpoint?.offset ?? 0) >= 2 << 20 }
        let task = try await TusResumeTests.listed(home)
        let url = try #require(task["upload_url"] as? String)
        let id = try #require(task["id"] as? Int)
        #expect(try await TusResumeTests.serverOffset(url) >= 2 << 20)

        // Bad input first: nothing is touched.
        let none = try await hoist(["resume", "--discard"], environment: environment)
        #expect(none.status == 2 && none.stderr.contains("--discard takes the uploads to end"), "\(none.stderr)")
        let unknown = try await hoist(["resume", "--discard", "99"], environment: environment)
        #expect(unknown.status == 2, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no upload #99 in the journals: hoist resume --list shows them"))
        let bad = try await hoist(["resume", "--discard", "x7"], environment: environment)
        #expect(bad.status == 2 && bad.stderr.contains("is not an upload as --list numbers them"))
        #expect(try await TusResumeTests.serverOffset(url) >= 2 << 20, "a refused --discard deleted nothing")

        let discard = try await hoist(["resume", "--discard", "#\(id)"], environment: environment)
        #expect(discard.status == 0, "\(discard.stderr)")
        #expect(
            discard.stderr.contains("discarded #\(id) 备份 big.bin: the tus upload was deleted on the server"),
            "\(discard.stderr)")
        let head = try await run(
            "/usr/bin/env",
            ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-I", "-H", "Tus-Resumable: 1.0.0", url])
        #expect(["404", "410"].contains(head.stdout), "the server still holds it: HEAD answered \(head.stdout)")
        let list = try await hoist(["resume", "--list"], environment: environment)
        #expect(list.stdout.isEmpty && list.stderr.contains("nothing to resume"), "\(list.stdout)\(list.stderr)")
    }

    @Test func aKeptS3UploadIsAbortedAndOneThatCannotBeStays() async throws {
        let seaweed = try await SeaweedPeer.start()
        try await seaweed.reader.createBucket("keep")
        let home = TemporaryDirectory()
        let environment = seaweed.environment(home: home.path).merging(TusResumeTests.environment(home)) { $1 }
        try await Self.killedSend(
            ["s3://keep/db/", "--part-size", "5M", "--limit-rate", "1M", "--retries", "0"], size: 30 << 20, home: home,
            environment: environment
        ) { ($0.checkpoint?.s3?.parts.count ?? 0) >= 1 }
        try await Task.sleep(for: .milliseconds(300))  // a part cut by the kill ends on the server
        #expect(try await seaweed.reader.openUploads("keep") == 1)

        // Keys the server refuses: the upload stays open, and so does its task.
        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let refused = try await hoist(["resume", "--discard", "--all"], environment: wrong)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("not discarded #1 备份 big.bin: AbortMultipartUpload of "), "\(refused.stderr)")
        #expect(refused.stderr.contains("(it stays in the journal)"))
        #expect(try await seaweed.reader.openUploads("keep") == 1)
        let kept = try await hoist(["resume", "--list"], environment: environment)
        #expect(kept.stdout.contains("备份 big.bin"), "\(kept.stdout)\(kept.stderr)")

        let discard = try await hoist(["resume", "--discard", "--all"], environment: environment)
        #expect(discard.status == 0, "\(discard.stderr)\n\(seaweed.logTail())")
        #expect(
            discard.stderr.contains("discarded #1 备份 big.bin: the multipart upload was aborted on the server"),
            "\(discard.stderr)")
        #expect(try await seaweed.reader.openUploads("keep") == 0)
        let list = try await hoist(["resume", "--list"], environment: environment)
        #expect(list.stderr.contains("nothing to resume"), "\(list.stdout)\(list.stderr)")
    }

    @Test func aNewSendOfTheSameFileGoesOnWithTheKeptUpload() async throws {
        let peer = try await TusPeer.resumableUpload()
        defer { peer.stop() }
        let home = TemporaryDirectory()
        let environment = TusResumeTests.environment(home)
        let arguments = ["--tus", peer.creationURL, "--chunk-size", "1M"]
        try await Self.killedSend(
            arguments + ["--limit-rate", "1M"], size: 16 << 20, home: home, environment: environment
        ) { ($0.checkpoint?.offset ?? 0) >= 3 << 20 }
        let kept = try await TusResumeTests.listed(home)
        let url = try #require(kept["upload_url"] as? String)
        let held = try await TusResumeTests.serverOffset(url)
        let path = home.path + "/备份 big.bin"
        let sha = sha256(Array(try Data(contentsOf: URL(fileURLWithPath: path))))

        let again = try await hoist(
            ["send"] + arguments + ["-T", path, "--json", "-s", "--no-history"], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("备份 big.bin goes on with the upload hoist send (pid "), "\(again.stderr)")
        let line = try jsonObject(try #require(again.stdoutLines.last))
        #expect(line["upload_url"] as? String == url, "the same upload, not a new one")
        let resumedFrom = Int64(try #require(line["resumed_from"] as? Int))
        #expect(resumedFrom >= held - (1 << 20) && resumedFrom <= held, "\(resumedFrom) against \(held) held")
        #expect(peer.storedFiles().values.contains { sha256(Array($0)) == sha })
        let list = try await hoist(["resume", "--list"], environment: environment)
        #expect(list.stderr.contains("nothing to resume"), "the kept task was taken: \(list.stdout)")

        // A file changed since: a new upload, and the kept one stays kept.
        try await Self.killedSend(
            arguments + ["--limit-rate", "1M"], size: 16 << 20, home: home, environment: environment
        ) { ($0.checkpoint?.offset ?? 0) >= 2 << 20 }
        try #require(utimes(path, nil) == 0)
        let changed = try await hoist(
            ["send"] + arguments + ["-T", path, "--json", "-s", "--no-history"], environment: environment)
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(!changed.stderr.contains("goes on with"), "\(changed.stderr)")
        #expect(try jsonObject(try #require(changed.stdoutLines.last))["resumed_from"] is NSNull)
        let still = try await hoist(["resume", "--list"], environment: environment)
        #expect(still.stdout.contains("备份 big.bin"), "\(still.stdout)\(still.stderr)")
    }
}
