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

    @Test func eachMakesOneTaskPerFileWithTheOtherFields() async throws {
        try await withReceiver { receiver, saved in
            let dir = TemporaryDirectory()
            var expected: [String: String] = [:]
            for index in 0..<50 {
                var generator = SeededGenerator(state: UInt64(index))
                let bytes = randomBytes(1000 + index, using: &generator)
                dir.file("img-\(index).png", bytes)
                expected["img-\(index).png"] = sha256(bytes)
            }
            dir.file("skip.txt", text: "not matched")
            let result = try await hoist([
                "send", receiver.baseURL + "/upload", "--json", "--concurrency", "8", "-F", "album=holiday", "--each",
                "image=@\(dir.path)/*.png",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try result.stdoutLines.map(jsonObject)
            #expect(lines.count == 50)
            var seen: [String: String] = [:]
            for line in lines {
                #expect(line["ok"] as? Bool == true)
                #expect(line["status"] as? Int == 200)
                #expect(line["attempts"] as? Int == 1)
                #expect((line["bytes_sent"] as? Int) == (line["bytes_total"] as? Int))
                let json = try #require(line["json"] as? [String: Any])
                let fields = try #require(json["fields"] as? [[String: String]])
                #expect(fields == [["name": "album", "value": "holiday"]])
                let file = try #require((json["files"] as? [[String: Any]])?.first)
                seen[file["filename"] as! String] = file["sha256"] as? String
            }
            #expect(seen == expected)
            #expect(try FileManager.default.contentsOfDirectory(atPath: saved.path).count == 50)
        }
    }

    @Test func afterSuccessChainsAndStopsAtTheFirstFailure() async throws {
        try await withReceiver(configure: { $0.failFirst = 0 }) { receiver, _ in
            let dir = TemporaryDirectory()
            for name in ["1-front.jpg", "2-back.jpg", "3-selfie.jpg"] { dir.file(name, text: name) }
            let ok = try await hoist([
                "send", receiver.baseURL + "/upload", "--json", "--after-success", "--each", "f=@\(dir.path)/*.jpg",
            ])
            #expect(ok.status == 0, "\(ok.stderr)")
            let order = try ok.stdoutLines.map { try jsonObject($0)["name"] as? String }
            #expect(order == ["1-front.jpg", "2-back.jpg", "3-selfie.jpg"], "finished in chain order")

            let failed = try await hoist([
                "send", receiver.baseURL + "/upload?status=500", "--json", "--retries", "0", "--after-success",
                "--each", "f=@\(dir.path)/*.jpg",
            ])
            #expect(failed.status == 1)
            let lines = try failed.stdoutLines.map(jsonObject)
            #expect(lines.count == 3)
            #expect(lines.map { $0["ok"] as? Bool } == [false, false, false])
            #expect((lines[0]["error"] as? String)?.hasPrefix("HTTP 500") == true)
            #expect((lines[1]["error"] as? String)?.contains("1-front.jpg (task #1) failed") == true)
            #expect(lines[1]["attempts"] as? Int == 0)
            #expect(receiver.requestCount == 4, "3 for the first run, 1 for the second")
        }
    }

    /// --each keeps the order its patterns were given in, a glob's matches
    /// by name; -v prints that order first. 反 (back) sorts before 正
    /// (front), so the front is named first.
    @Test func eachKeepsThePatternOrderAndVerbosePrintsIt() async throws {
        try await withReceiver { receiver, _ in
            let dir = TemporaryDirectory()
            for name in ["身份证 正面.jpg", "身份证 反面.jpg", "b.png", "a.png"] { dir.file(name, text: name) }
            let result = try await hoist([
                "send", receiver.baseURL + "/upload", "--json", "--after-success", "-v", "--each",
                "image=@\(dir.path)/身份证 正面.jpg", "--each", "image=@\(dir.path)/身份证 反面.jpg", "--each",
                "extra=@\(dir.path)/*.png", "--no-history",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let expected = ["身份证 正面.jpg", "身份证 反面.jpg", "a.png", "b.png"]
            #expect(try result.stdoutLines.map { try jsonObject($0)["name"] as? String } == expected)
            #expect(
                result.stderr.contains(
                    "hoist: 4 tasks, in this order, each after the one before succeeded:\n  1. 身份证 正面.jpg\n"
                        + "  2. 身份证 反面.jpg\n  3. a.png\n  4. b.png\n"), "\(result.stderr)")
        }
    }

    @Test func jsonLineHasEveryField() async throws {
        try await withReceiver { receiver, _ in
            let result = try await hoist(["send", receiver.baseURL + "/upload?reply=text", "--json", "-F", "a=b"])
            #expect(result.status == 0)
            let line = try jsonObject(try #require(result.stdoutLines.first))
            for key in [
                "id", "url", "ok", "status", "bytes_sent", "bytes_total", "duration_ms", "attempts", "error", "json",
                "body",
            ] {
                #expect(line[key] != nil, "missing \(key)")
            }
            #expect(line["json"] is NSNull)
            #expect(line["body"] as? String == "hello from hoist receiver")
            #expect(line["error"] is NSNull)
        }
    }

    @Test func bodyIsPrintedAsCurlDoes() async throws {
        try await withReceiver { receiver, _ in
            let result = try await hoist(["send", receiver.baseURL + "/upload?reply=text", "-F", "a=b"])
            #expect(result.status == 0)
            #expect(result.stdout == "hello from hoist receiver")
        }
    }

    @Test func failedUploadExitsOneWithTheServerMessage() async throws {
        try await withReceiver { receiver, _ in
            let reply = #"{"RETCODE":"0001","RETMSG":"photo is blurry"}"#.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            let result = try await hoist([
                "send", receiver.baseURL + "/upload?json=" + reply, "-F", "a=b", "--expect", "RETCODE=0000",
                "--message-path", "RETMSG",
            ])
            #expect(result.status == 1)
            #expect(result.stderr.contains(#"expected RETCODE = "0000", got "0001": photo is blurry"#))
            let refused = try await hoist(["send", "http://127.0.0.1:9/upload", "-F", "a=b", "--retries", "0"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("cannot connect") && !refused.stderr.contains("attempts"))
            let twice = try await hoist(["send", "http://127.0.0.1:9/upload", "-F", "a=b", "--retries", "1"])
            #expect(twice.stderr.contains("connection refused (after 2 attempts)"), "\(twice.stderr)")
            // A name that does not resolve (.invalid never does) is said so, not as NIO's error type,
            // and at once: trying it again would not change it.
            let unknown = try await hoist(["send", "http://no-such-host.invalid/up", "-F", "a=b"])
            #expect(unknown.status == 1)
            #expect(!unknown.stderr.contains("attempts"), "\(unknown.stderr)")
            #expect(
                unknown.stderr.contains(
                    "cannot connect: no-such-host.invalid: no such host (its name did not resolve; check the URL)")
                    && !unknown.stderr.contains("SocketAddressError"), "\(unknown.stderr)")
        }
    }

    @Test(arguments: [
        (["send", "http://127.0.0.1:9/", "-F", "noequals"], "bad -F argument"),
        (
            ["send", "http://127.0.0.1:9/", "-F", "f=@/no/such/file.jpg"],
            "file not found: /no/such/file.jpg (field \"f\")"
        ),
        (["send", "http://127.0.0.1:9/", "-F", "f=@/tmp"], "/tmp is a folder: to send the files in it"),
        // A file sent as the whole body has no field to name.
        (["send", "http://127.0.0.1:9/", "-T", "/no/such/file.bin"], "hoist: file not found: /no/such/file.bin\n"),
        (
            ["send", "--tus", "http://127.0.0.1:9/", "-T", "/tmp"],
            "hoist: /tmp is a folder: to send the files in it and its subfolders, give -T '/tmp/**'\n"
        ),
        // A -F value that starts with a control character stays a -F value, as given, as in curl.
        (
            ["send", "http://127.0.0.1:9/", "-F", "\u{1}string:a=@/no/such/file"],
            #"file not found: /no/such/file (field "\u{01}string:a")"#
        ),
        (["send", "ftp://example.com/", "-F", "a=b"], "the scheme must be http or https"),
        (
            ["send", "example.com/upload", "-F", "a=b"],
            "it has no scheme: add http:// or https:// (https://example.com/upload)"
        ),
        (["send", "not a url", "-F", "a=b"], "invalid URL"),
        (["send", "http://127.0.0.1:9/"], "nothing to send"),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "--json", "{\"x\":1}"], "cannot be combined"),
        (["send", "http://127.0.0.1:9/", "--json", "{broken"], "not valid JSON"),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "-X", "DELETE"], "use POST, PUT or PATCH"),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "-H", "NoColon"], #"is not a header: expected "Name: value""#),
        (["send", "http://127.0.0.1:9/", "--each", "f=@/no/such/dir/*.jpg"], "no file matches"),
        (
            ["send", "http://127.0.0.1:9/", "-F", "a=b", "--expect", "=x"],
            #""=x" is not an expectation: expected key.path=value"#
        ),
        (
            ["send", "http://127.0.0.1:9/", "-F", "a=b", "--concurrency", "0"],
            "0 is not a number of uploads at once: give a whole number, at least 1"
        ),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "--bogus"], "Unknown option"),
    ])
    func badInputExitsTwoAndSendsNothing(_ arguments: [String], _ message: String) async throws {
        let result = try await hoist(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// `hoist send` is parsed by SendCommand alone first (a quarter of a
    /// one-file send's start-up was parsing from the root); what that parse
    /// refuses is parsed again from the root, so messages still name `hoist send`.
    @Test func usageErrorsAndHelpNameHoistSend() async throws {
        let bad = try await hoist(["send", "http://127.0.0.1:9/", "-F", "a=b", "--bogus"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("Usage: hoist send "), "\(bad.stderr)")
        #expect(bad.stderr.contains("See 'hoist send --help'"), "\(bad.stderr)")
        let help = try await hoist(["send", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: hoist send "), "\(help.stdout)")
        #expect(help.stdout.contains("--limit-rate"), "\(help.stdout)")
        let completion = try await hoist(["send", "--generate-completion-script", "bash"])
        #expect(completion.status == 0)
        #expect(completion.stdout.contains("_hoist()"), "\(completion.stdout.prefix(300))")
    }

    @Test func unreadableFileIsBadInput() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("secret.key", text: "k", mode: 0o000)
        var command = [hoistBinary, "send", "http://127.0.0.1:9/", "-F", "key=@\(path)"]
        if geteuid() == 0 {
            // root reads everything: run the same command as nobody, from a copy nobody can execute.
            let copy = dir.path + "/hoist"
            try FileManager.default.copyItem(atPath: hoistBinary, toPath: copy)
            command = ["--reuid=65534", "--regid=65534", "--clear-groups", copy] + command.dropFirst()
            let result = try await run("/usr/bin/setpriv", command)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("permission denied: \(path) (field \"key\")"), "\(result.stderr)")
        } else {
            let result = try await run(command[0], Array(command.dropFirst()))
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("permission denied: \(path) (field \"key\")"))
        }
    }

    @Test func secretsAreMaskedInVerboseOutput() async throws {
        try await withReceiver { receiver, _ in
            let result = try await hoist([
                "send", receiver.baseURL.replacingOccurrences(of: "http://", with: "http://me:hunter2@") + "/upload",
                "-v", "-s",
                "-u", "alice:s3cret-pw", "-H", "Cookie: session=abcdef", "-H", "X-Plain: visible",
                "-F", "password=p4ss", "-F", "pin=1234", "--secret", "pin", "-F", "name=Bob",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            for secret in ["hunter2", "s3cret-pw", "YWxpY2U6czNjcmV0LXB3", "abcdef", "p4ss", "1234"] {
                #expect(!result.stderr.contains(secret), "\(secret) leaked: \(result.stderr)")
            }
            #expect(result.stderr.contains("Authorization: Basic ••••••"))
            #expect(result.stderr.contains("X-Plain: visible"))
            #expect(result.stderr.contains("\"name\" = \"Bob\""))
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

    /// `-v` shows each exchange as it starts and as it ends, as curl's does,
    /// with the URL's credentials masked.
    @Test func verboseTracesEachExchangeWithItsOutcome() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file("a.txt", text: "hello")
        try await withReceiver { receiver, _ in
            let result = try await hoist([
                "send", receiver.baseURL + "/upload?token=s3cr3t-value&x=1", "-F", "f=@\(file)", "-s", "-v",
                "--no-history", "--no-journal",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let url = receiver.baseURL + "/upload?token=••••••&x=1"
            let lines = result.stderr.split(separator: "\n").map(String.init)
            let start = try #require(
                lines.firstIndex { $0.hasPrefix("hoist: > POST \(url) (") && $0.hasSuffix(" bytes)") })
            let end = try #require(lines.firstIndex(of: "hoist: < 200 POST \(url)"))
            #expect(start < end)
            #expect(!result.stderr.contains("s3cr3t-value"))
        }
        let refused = try await hoist([
            "send", "http://127.0.0.1:9/up", "-F", "f=@\(file)", "-s", "-v", "--retries", "1", "--no-history",
            "--no-journal",
        ])
        let failures = refused.stderr.split(separator: "\n").filter {
            $0.hasPrefix("hoist: ! POST http://127.0.0.1:9/up: ")
        }
        #expect(failures.count == 2, "one line per attempt: \(refused.stderr)")
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
}
