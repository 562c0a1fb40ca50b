import Foundation
import Glibc
import Receiver
import TestSupport
import Testing

/// The promise of tus: `hoist send --tus` killed with SIGKILL halfway
/// through a 200 MB file, then `hoist resume` (or R in the UI) goes on from
/// the byte the server holds, and the server ends up with the file.
@Suite(.serialized) struct TusResumeTests {
    static let size = 200 << 20
    static let chunk: Int64 = 8 << 20

    /// 200 MB of random bytes, written by the kernel's generator (fast in a debug build).
    static func bigFile(in home: TemporaryDirectory) async throws -> (path: String, sha: String) {
        let path = home.path + "/备份 big.bin"
        let made = try await run("/bin/sh", ["-c", "head -c \(size) /dev/urandom > '\(path)' && sha256sum '\(path)'"])
        try #require(made.status == 0, "\(made.stderr)")
        return (path, String(made.stdout.prefix(64)))
    }

    static func environment(_ home: TemporaryDirectory) -> [String: String] {
        ["HOME": home.path, "XDG_STATE_HOME": home.path + "/.local/state"]
    }

    /// Starts the send, and kills it once the server holds about half.
    static func sendAndKillHalfway(
        _ url: String, file: String, home: TemporaryDirectory, extra: [String] = [], held: () -> Int64
    ) async throws {
        let send = try Subprocess(
            hoistBinary, ["send", "--tus", url, "-T", file, "--json", "-s", "--no-history"] + extra,
            environment: hoistEnvironment(environment(home)))
        try await JournalTests.waitUntil("half the file on the server", timeout: .seconds(120)) {
            held() >= Int64(size / 2)
        }
        kill(send.pid, SIGKILL)
        let killed = await send.result()
        #expect(killed.status == 128 + SIGKILL, "it finished before the kill")
    }

    /// Starts `hoist send --tus` of `size` random bytes at 4 MB/s in 1 MiB
    /// PATCHes, and kills the server once it holds `stopAt`.
    static func sendAndStopTheServer(
        _ peer: TusPeer, home: TemporaryDirectory, size: Int, stopAt: Int64, extra: [String] = []
    ) async throws -> (send: Subprocess, sha: String) {
        let file = home.path + "/scan 扫描.bin"
        let made = try await run(
            "/bin/sh", ["-c", "head -c \(size) /dev/urandom > '\(file)' && sha256sum '\(file)'"])
        let send = try Subprocess(
            hoistBinary,
            ["send", "--tus", peer.creationURL, "-T", file, "--json", "-s", "--no-history"]
                + ["--chunk-size", "1M", "--limit-rate", "4M"] + extra,
            environment: hoistEnvironment(environment(home)))
        try await JournalTests.waitUntil("\(stopAt) bytes on the server", timeout: .seconds(60)) {
            largestFile(in: peer.directory.path) >= stopAt
        }
        peer.stop()
        return (send, String(made.stdout.prefix(64)))
    }

    /// How a send ended: its status, its stderr and its last `--json` line.
    static func ended(_ send: Subprocess) async throws -> (status: Int32, stderr: String, line: [String: Any]) {
        let result = await send.result()
        let last = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").last.map(String.init)
        return (result.status, String(decoding: result.stderr, as: UTF8.self), try jsonObject(try #require(last)))
    }

    /// `hoist resume --list --json`: the one task, with its upload URL.
    static func listed(_ home: TemporaryDirectory) async throws -> [String: Any] {
        let list = try await hoist(["resume", "--list", "--json"], environment: environment(home))
        #expect(list.status == 0, "\(list.stderr)")
        try #require(list.stdoutLines.count == 1, "\(list.stdout)\(list.stderr)")
        return try jsonObject(list.stdoutLines[0])
    }

    /// The size of the largest file under `folder`: how far a server got.
    static func largestFile(in folder: String) -> Int64 {
        var largest: Int64 = 0
        let walker = FileManager.default.enumerator(atPath: folder)
        while let name = walker?.nextObject() as? String {
            var info = stat()
            if stat(folder + "/" + name, &info) == 0 { largest = max(largest, Int64(info.st_size)) }
        }
        return largest
    }

    /// Whether the receiver saved `name` with this SHA-256.
    static func expectSaved(_ name: String, in saved: TemporaryDirectory, sha: String) async throws {
        let stored = try await run("/usr/bin/env", ["sha256sum", saved.path + "/" + name])
        #expect(stored.stdout.hasPrefix(sha))
    }

    /// What the server says it holds of an upload.
    static func serverOffset(_ url: String) async throws -> Int64 {
        let head = try await run("/usr/bin/env", ["curl", "-sfI", "-H", "Tus-Resumable: 1.0.0", url])
        let line = head.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-offset:") }
        return try #require(line.flatMap { Int64($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) })
    }

    @Test func aKilledSendIsResumedByHoistResumeAndNoByteGoesTwice() async throws {
        // 80 MB/s: the kill lands while the file is on its way.
        try await withReceiver(configure: { $0.readBytesPerSecond = 80 << 20 }) { receiver, saved in
            let home = TemporaryDirectory()
            let (file, sha) = try await Self.bigFile(in: home)
            let patched = { receiver.tusRequests().filter { $0.method == "PATCH" }.reduce(0) { $0 + $1.keptBytes } }
            try await Self.sendAndKillHalfway(receiver.baseURL + "/files", file: file, home: home, held: patched)
            try await Task.sleep(for: .milliseconds(300))  // the cut PATCH ends on the server
            let task = try await Self.listed(home)
            let uploadURL = try #require(task["upload_url"] as? String)
            let held = try await Self.serverOffset(uploadURL)
            #expect((task["resume_from"] as? Int).map(Int64.init) ?? -1 <= held, "the journal never runs ahead")
            let before = receiver.tusRequests().count

            let resume = try await hoist(
                ["resume", "--json", "-s", "--no-history"], environment: Self.environment(home))
            #expect(resume.status == 0, "\(resume.stderr)")
            let line = try jsonObject(try #require(resume.stdoutLines.last))
            #expect(line["ok"] as? Bool == true)
            let resumedFrom = Int64(try #require(line["resumed_from"] as? Int))
            #expect(resumedFrom >= held - Self.chunk && resumedFrom <= held)
            let after = receiver.tusRequests()[before...]
            let sentAfter = after.reduce(0) { $0 + $1.bodyBytes }
            #expect(sentAfter <= Int64(Self.size) - held + Self.chunk, "sent \(sentAfter) after the kill")
            // Across the whole upload, every byte was kept once.
            let ranges = receiver.tusRequests().compactMap(\.keptRange).sorted { $0.lowerBound < $1.lowerBound }
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == Int64(Self.size))
            try await Self.expectSaved(try #require(after.compactMap(\.savedAs).first), in: saved, sha: sha)
            // Nothing is left to resume.
            let again = try await hoist(["resume", "--list"], environment: Self.environment(home))
            #expect(again.stdout.isEmpty && again.stderr.contains("nothing to resume"))
        }
    }

    @Test func aKilledSendIsResumedAgainstResumableUpload() async throws {
        let peer = try await TusPeer.resumableUpload()
        let home = TemporaryDirectory()
        let (file, sha) = try await Self.bigFile(in: home)
        // Its partial file grows as PATCH bodies arrive.
        let held = { Self.largestFile(in: peer.directory.path) }
        // 20 MB/s in 1 MB chunks: the second half takes 5 s, so the kill lands halfway
        // however fast the Python server is (unthrottled, it once finished between two polls).
        try await Self.sendAndKillHalfway(
            peer.creationURL, file: file, home: home, extra: ["--chunk-size", "1M", "--limit-rate", "20M"], held: held)
        try await Task.sleep(for: .milliseconds(300))
        let task = try await Self.listed(home)
        let atKill = try await Self.serverOffset(try #require(task["upload_url"] as? String))

        let resume = try await hoist(["resume", "--json", "-s", "--no-history"], environment: Self.environment(home))
        #expect(resume.status == 0, "\(resume.stderr)")
        let line = try jsonObject(try #require(resume.stdoutLines.last))
        let resumedFrom = Int64(try #require(line["resumed_from"] as? Int))
        #expect(resumedFrom >= atKill - (1 << 20) && resumedFrom <= atKill)
        #expect(peer.storedFiles().values.contains { sha256(Array($0)) == sha })
    }

    /// A tus server killed mid-upload and back 12 s later: the send waits
    /// it out (a resumable upload retries an outage for minutes, not the
    /// 5 s of a form's retries), goes on from what the server kept, and
    /// the server ends up with the file.
    @Test func aTusUploadWaitsOutAServerRestart() async throws {
        let peer = try await TusPeer.resumableUpload()
        let home = TemporaryDirectory()
        let (send, sha) = try await Self.sendAndStopTheServer(peer, home: home, size: 24 << 20, stopAt: 6 << 20)
        try await Task.sleep(for: .seconds(12))
        try await peer.restartResumableUpload()
        let (status, stderr, line) = try await Self.ended(send)
        #expect(status == 0, "\(stderr)")
        #expect(line["ok"] as? Bool == true, "\(line)")
        // The server's file runs ahead of the offset it acknowledged by the PATCHes in flight at the kill.
        #expect((line["resumed_from"] as? Int ?? 0) >= 3 << 20, "went on from what the server kept: \(line)")
        #expect(peer.storedFiles().values.contains { sha256(Array($0)) == sha })
    }

    /// A server still away when the retries run out: the upload is not
    /// lost. It stays open on the server and in the journal, `hoist resume`
    /// lists it, and once the server is back it goes on from its offset.
    @Test func anUploadWhoseServerStaysAwayIsKeptForResume() async throws {
        let peer = try await TusPeer.resumableUpload()
        let home = TemporaryDirectory()
        let (send, sha) = try await Self.sendAndStopTheServer(
            peer, home: home, size: 12 << 20, stopAt: 4 << 20, extra: ["--retries", "1"])
        let (status, stderr, line) = try await Self.ended(send)
        #expect(status == 1, "\(stderr)")
        #expect(stderr.contains("kept for hoist resume"), "\(stderr)")
        #expect(line["kept_for_resume"] as? Bool == true, "\(line)")
        let listed = try await Self.listed(home)
        #expect(listed["upload_url"] as? String == line["upload_url"] as? String)

        try await peer.restartResumableUpload()
        let resume = try await hoist(["resume", "--json", "-s", "--no-history"], environment: Self.environment(home))
        #expect(resume.status == 0, "\(resume.stderr)")
        let resumed = try jsonObject(try #require(resume.stdoutLines.last))
        #expect((resumed["resumed_from"] as? Int ?? 0) >= 1 << 20, "went on from what the server kept: \(resumed)")
        #expect(peer.storedFiles().values.contains { sha256(Array($0)) == sha })
        let again = try await hoist(["resume", "--list"], environment: Self.environment(home))
        #expect(again.stderr.contains("nothing to resume"), "\(again.stderr)")
    }

    @Test func aKilledSendIsResumedInTheUIWithR() async throws {
        try await withReceiver(configure: { $0.readBytesPerSecond = 80 << 20 }) { receiver, saved in
            let home = TemporaryDirectory()
            let (file, sha) = try await Self.bigFile(in: home)
            let patched = { receiver.tusRequests().filter { $0.method == "PATCH" }.reduce(0) { $0 + $1.keptBytes } }
            try await Self.sendAndKillHalfway(receiver.baseURL + "/files", file: file, home: home, held: patched)
            let tmux = try await JournalTests.startUI(home)
            defer { Task { await tmux.kill() } }
            try await tmux.waitFor("the adopted upload") {
                $0.text.contains("1 interrupted upload") && $0.text.contains("resumable")
                    && $0.text.contains("the server holds")
            }
            try await tmux.press("R")
            let screen = try await tmux.waitFor("the upload done", timeout: .seconds(120)) {
                $0.text.contains("✔ 1") && $0.text.contains("resumed at")
            }
            #expect(screen.text.contains("备份 big.bin"))
            let name = try #require(receiver.tusRequests().compactMap(\.savedAs).first)
            try await Self.expectSaved(name, in: saved, sha: sha)
            try await tmux.press("q")
            try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }
            #expect(JournalTests.journals(home.path).isEmpty)
        }
    }

    @Test func standardInputGoesUpWithDeferredLength() async throws {
        try await withReceiver { receiver, saved in
            var generator = SeededGenerator(state: 7)
            let bytes = randomBytes(3 << 20, using: &generator)
            let result = try await hoist(
                ["send", "--tus", receiver.baseURL + "/files", "-T", "-", "--chunk-size", "1M", "--json", "-s"],
                input: { $0.write(Data(bytes)) })
            #expect(result.status == 0, "\(result.stderr)")
            let creation = try #require(receiver.tusRequests().first { $0.method == "POST" })
            #expect(creation.status == 201)
            let patches = receiver.tusRequests().filter { $0.method == "PATCH" }
            #expect(patches.count == 3)
            let name = try #require(patches.compactMap(\.savedAs).first)
            let stored = try #require(FileManager.default.contents(atPath: saved.path + "/" + name))
            #expect(sha256(Array(stored)) == sha256(bytes))
        }
    }

    @Test func standardInputOfOneChunkGoesToResumableUpload() async throws {
        // resumable-upload wants Upload-Length on the first PATCH of a
        // deferred upload: met when standard input fits in one chunk.
        let peer = try await TusPeer.resumableUpload()
        var generator = SeededGenerator(state: 8)
        let bytes = randomBytes(300_000, using: &generator)
        let result = try await hoist(
            ["send", "--tus", peer.creationURL, "-T", "-", "--json", "-s"], input: { $0.write(Data(bytes)) })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(peer.storedFiles().values.contains { sha256(Array($0)) == sha256(bytes) })
    }
}
