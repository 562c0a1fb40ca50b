import Foundation
import Receiver
import TestSupport
import Testing

/// `hoist send` run as a real subprocess against the Receiver on loopback.
@Suite(.serialized) struct SendCommandTests {
    @Test func everyFormSyntaxArrivesAsIntended() async throws {
        try await withReceiver { receiver, _ in
            let dir = TemporaryDirectory()
            let photo = dir.file("身份证 正面.jpg", [0xFF, 0xD8, 1, 2, 3])
            let note = dir.file("note.txt", text: "from a file")
            let headerFile = dir.file("headers.txt", text: "X-From-File: yes\n# a comment\n")
            let result = try await hoist([
                "send", receiver.baseURL + "/upload", "-s",
                "-F", "plain=hello world",
                "-F", "photo=@\(photo)",
                "-F", "typed=@\(note);type=text/x-note",
                "-F", "renamed=@\(note);filename=renamed.txt",
                "-F", "contents=<\(note)",
                "-F", "quoted=\"a;b=c\"",
                "-F", "withheader=@\(note);headers=\"X-Trace: 7\"",
                "-F", "hdrfile=@\(note);headers=@\(headerFile)",
                "--form-string", "literal=@not-a-file;type=x",
                "-F", "files[]=@\(note)",
                "-F", "files[]=@\(photo)",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let upload = try decode(result.stdout)
            #expect(
                upload.fields.map { "\($0.name)=\($0.value)" } == [
                    "plain=hello world", "contents=from a file", "quoted=a;b=c", "literal=@not-a-file;type=x",
                ])
            let files = upload.files.map { "\($0.name) \($0.filename ?? "-") \($0.contentType ?? "-") \($0.size)" }
            #expect(
                files == [
                    "photo 身份证 正面.jpg image/jpeg 5",
                    "typed note.txt text/x-note 11",
                    "renamed renamed.txt text/plain 11",
                    "withheader note.txt text/plain 11",
                    "hdrfile note.txt text/plain 11",
                    "files[] note.txt text/plain 11",
                    "files[] 身份证 正面.jpg image/jpeg 5",
                ])
        }
    }

    /// A script may name every part on the command line. 10,000 `-F` took
    /// 10 s to parse (swift-argument-parser's work grows with the square of
    /// the arguments); the form is now one argument to it, in order.
    @Test func tenThousandFormArgumentsAreParsedQuicklyAndKeepTheirOrder() async throws {
        try await withReceiver(configure: { $0.maxParts = 20_000 }) { receiver, _ in
            let count = 10_000
            let form = (0..<count).flatMap { ["-F", "f\($0)=v\($0)"] }
            // hoist's own CPU time (user and system), which the other suites
            // running beside it on two cores disturb far less than wall time
            // (that read 8.4-11 s in full runs, 2.4 s alone).
            let folder = TemporaryDirectory()
            let times = folder.file("took.txt", text: "")
            let result = try await run(
                "/usr/bin/time",
                ["-f", "%U %S", "-o", times, hoistBinary, "send", receiver.baseURL + "/upload", "-s"] + form,
                environment: hoistEnvironment())
            #expect(result.status == 0, "\(result.stderr)")
            let fields = try decode(result.stdout).fields
            #expect(fields.count == count)
            #expect(fields.enumerated().allSatisfy { $1.name == "f\($0)" && $1.value == "v\($0)" })
            let cpu = try String(contentsOfFile: times, encoding: .utf8).split(whereSeparator: \.isWhitespace)
                .compactMap { Double($0) }.reduce(0, +)
            #expect(cpu > 0 && cpu < 4, "hoist took \(cpu) s of CPU")
        }
    }

    /// curl's other spellings of -F: an attached value, short flags joined
    /// to it, `--form=`; and every value that follows -F is a part, even one
    /// that starts with a dash. Their order is kept with --form-string and --each.
    @Test func curlsOtherFormSpellingsAreReadAsCurlReadsThem() async throws {
        try await withReceiver { receiver, _ in
            let dir = TemporaryDirectory()
            let note = dir.file("note.txt", text: "n")
            let result = try await hoist([
                "send", receiver.baseURL + "/upload",
                "-Fa=attached", "--form-string", "b=@literal", "-vF", "c=joined", "--form=d=equals",
                "-F", "-e=dash", "-F", "f=@\(note)", "-F", "g=last",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("> part \"c\" = \"joined\""), "-v was read: \(result.stderr)")
            let upload = try decode(result.stdout)
            #expect(
                upload.fields.map { "\($0.name)=\($0.value)" } == [
                    "a=attached", "b=@literal", "c=joined", "d=equals", "-e=dash", "g=last",
                ])
            #expect(upload.files.map(\.filename) == ["note.txt"])
        }
    }

    /// -T and -H are gathered as -F is: attached values, joined short flags
    /// and `--long=value` keep their order (tasks in -T order, headers as given).
    @Test func curlsSpellingsOfTAndHKeepTheirOrder() async throws {
        try await withReceiver { receiver, _ in
            let dir = TemporaryDirectory()
            let files = ["a", "b", "c", "d"].map { dir.file("\($0).bin", text: $0) }
            let result = try await hoist([
                "send", receiver.baseURL + "/upload", "-v", "--json",
                "-T", files[0], "-T\(files[1])", "--upload-file=\(files[2])", "-sT", files[3],
                "-HX-A: 1", "-H", "X-B: 2", "--header=X-C: 3", "-vH", "X-D: 4",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutLines.count == 4)
            #expect(result.stderr.contains("  1. a.bin\n  2. b.bin\n  3. c.bin\n  4. d.bin\n"), "\(result.stderr)")
            #expect(
                result.stderr.contains("> X-A: 1\n> X-B: 2\n> X-C: 3\n> X-D: 4\n> body: raw: \(files[3])"),
                "\(result.stderr)")
            #expect(receiver.requestCount == 4)
        }
    }

    @Test func stdinIsStreamedNotBuffered() async throws {
        try await withReceiver { receiver, _ in
            let total = 200 << 20
            let hasher = LockedHasher()
            let result = try await run(
                "/usr/bin/time",
                [
                    "-f", "maxrss_kib=%M", hoistBinary, "send", receiver.baseURL + "/upload", "-s", "--json", "-F",
                    "blob=@-;filename=stdin.bin",
                ], environment: hoistEnvironment()
            ) { pipe in
                var generator = SeededGenerator(state: 42)
                var sent = 0
                while sent < total {
                    let chunk = randomBytes(min(1 << 20, total - sent), using: &generator)
                    hasher.update(chunk)
                    guard (try? pipe.write(contentsOf: chunk)) != nil else { return }
                    sent += chunk.count
                }
            }
            #expect(result.status == 0, "\(result.stderr)")
            let line = try jsonObject(try #require(result.stdoutLines.first))
            #expect(line["ok"] as? Bool == true)
            #expect(line["bytes_total"] is NSNull, "stdin has no known length: sent chunked")
            let file = try #require(((line["json"] as? [String: Any])?["files"] as? [[String: Any]])?.first)
            #expect(file["sha256"] as? String == hasher.hex)
            #expect((file["size"] as? NSNumber)?.intValue == total)
            let rss = result.stderr.split(separator: "\n").first { $0.hasPrefix("maxrss_kib=") }.flatMap {
                Int($0.dropFirst("maxrss_kib=".count))
            }
            #expect(try #require(rss) < 150 * 1024, "200 MB of stdin must not be held in memory")
        }
    }

    @Test func otherBodyKinds() async throws {
        try await withReceiver { receiver, _ in
            let dir = TemporaryDirectory()
            let image = dir.file("scan.png", [1, 2, 3, 4, 5])
            let raw = try decode(try await hoist(["send", receiver.baseURL + "/scan.png", "-s", "-T", image]).stdout)
            #expect(raw.method == "PUT")
            #expect(raw.files.first?.sha256 == sha256([1, 2, 3, 4, 5]))
            let urlencoded = try decode(
                try await hoist([
                    "send", receiver.baseURL, "-s", "-d", "a=1&b=two", "--data-urlencode", "msg=hi there&more",
                ]).stdout)
            #expect(urlencoded.fields.map { "\($0.name)=\($0.value)" } == ["a=1", "b=two", "msg=hi there&more"])
            let json = try await hoist([
                "send", receiver.baseURL, "-s", "--json", #"{"RETCODE":"0000"}"#, "--expect", "json.RETCODE=0000",
            ])
            #expect(json.status == 0, "\(json.stderr)")
            let base64 = try await hoist([
                "send", receiver.baseURL, "-s", "--json", "--base64-json", "image=@\(image)", "-F", "user=42",
            ])
            #expect(base64.status == 0, "\(base64.stderr)")
            let echoed = try #require(
                (try jsonObject(base64.stdout)["json"] as? [String: Any])?["json"] as? [String: String])
            #expect(echoed == ["image": Data([1, 2, 3, 4, 5]).base64EncodedString(), "type": "png", "user": "42"])
        }
    }
}

/// Ctrl-C says where the unfinished uploads went and how to send them.
@Suite struct SendInterruptTests {
    @Test func anInterruptSaysHowToResume() async throws {
        let state = TemporaryDirectory()
        try await withReceiver { receiver, _ in
            let send = try Subprocess(
                hoistBinary, ["send", receiver.baseURL + "/upload?stall=20000", "-F", "a=b", "-s"],
                environment: hoistEnvironment(["XDG_STATE_HOME": state.path]), timeout: .seconds(60))
            // Once the request is on the server, hoist has its SIGINT handler (a busy machine starts it late).
            try await JournalTests.waitUntil("the request on the server", timeout: .seconds(30)) {
                receiver.requestCount >= 1
            }
            kill(send.pid, SIGINT)
            let result = await send.result()
            let stderr = String(decoding: result.stderr, as: UTF8.self)
            #expect(result.status == 130)
            #expect(
                stderr.contains(
                    "hoist: interrupted: 1 unfinished upload kept in the journal: hoist resume sends it (or hoist, then R)"
                ),
                "\(stderr)")
        }
    }

    /// An answer on its way when Ctrl-C comes is waited for (up to 3 s) and
    /// recorded as done: `hoist resume` must not send it again (issue 37 #1).
    @Test func anAnswerOnItsWayWhenCtrlCComesIsRecordedAsDone() async throws {
        let state = TemporaryDirectory()
        try await withReceiver { receiver, _ in
            let environment = ["XDG_STATE_HOME": state.path]
            let send = try Subprocess(
                hoistBinary, ["send", receiver.baseURL + "/upload?delay=2500", "-F", "a=b", "--json", "-s"],
                environment: hoistEnvironment(environment), timeout: .seconds(60))
            try await JournalTests.waitUntil("the request on the server", timeout: .seconds(30)) {
                receiver.requestCount >= 1
            }
            // The answer is held 2.5 s: 0.3 s in, the whole body is on the server.
            try await Task.sleep(for: .milliseconds(300))
            kill(send.pid, SIGINT)
            let result = await send.result()
            // 0 when a loaded machine delivered the signal after the answer: nothing to stop then.
            #expect([130, 0].contains(result.status))
            let stdout = String(decoding: result.stdout, as: UTF8.self)
            let line = try jsonObject(try #require(stdout.split(separator: "\n").last.map(String.init)))
            #expect(line["ok"] as? Bool == true, "\(line)")
            let resume = try await hoist(["resume"], environment: environment)
            #expect(resume.stderr.contains("nothing to resume"), "\(resume.stderr)")
            #expect(receiver.requestCount == 1, "sent again")
        }
    }

    /// SIGINT and SIGTERM start none of the queued uploads: a server that
    /// counts request starts sees the two that were running, and nothing
    /// more, before or after `hoist resume --list` (issue 37 #1).
    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStartsNoQueuedUpload(_ signal: Int32) async throws {
        let state = TemporaryDirectory()
        let files = TemporaryDirectory()
        for n in 0..<8 { _ = files.file("f\(n).bin", Array(repeating: UInt8(n), count: 1000)) }
        try await withReceiver { receiver, _ in
            let environment = ["XDG_STATE_HOME": state.path]
            let send = try Subprocess(
                hoistBinary,
                [
                    "send", receiver.baseURL + "/upload?delay=10000", "--each", "f=@\(files.path)/*.bin",
                    "--concurrency", "2", "-s",
                ], environment: hoistEnvironment(environment), timeout: .seconds(60))
            try await JournalTests.waitUntil("two requests on the server", timeout: .seconds(30)) {
                receiver.requestCount >= 2
            }
            kill(send.pid, signal)
            let result = await send.result()
            #expect(result.status == 130, "\(String(decoding: result.stderr, as: UTF8.self))")
            #expect(receiver.requestCount == 2, "a queued upload was started")
            let list = try await hoist(["resume", "--list", "--json"], environment: environment)
            #expect(list.stdoutLines.count == 8, "every upload kept: \(list.stdout)")
            #expect(receiver.requestCount == 2)
        }
    }
}
