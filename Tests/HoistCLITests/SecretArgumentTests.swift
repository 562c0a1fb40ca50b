import Foundation
import Glibc
import TestSupport
import Testing

/// Secrets given on the command line: gone from `/proc/PID/cmdline` while
/// the upload runs, masked in every message, and sent as given.
@Suite struct SecretArgumentTests {
    /// Python's http.server: answers the request's headers as JSON; `/slow`
    /// answers once the file named by its `release` parameter exists (at most
    /// 60 s); `/check?basic=B64` answers only whether the
    /// Authorization header was `Basic B64` (so the screen never shows it).
    static let script = #"""
        import http.server, json, os, time, urllib.parse
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/slow":
                    release, deadline = urllib.parse.parse_qs(url.query)["release"][0], time.time() + 60
                    while not os.path.exists(release) and time.time() < deadline: time.sleep(0.05)
                if url.path == "/check":
                    expected = "Basic " + urllib.parse.parse_qs(url.query)["basic"][0]
                    answer = {"auth_ok": self.headers.get("Authorization") == expected}
                else:
                    answer = {"headers": {k.lower(): v for k, v in self.headers.items()}}
                body = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args): pass
        http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler).serve_forever()
        """#

    func withEchoServer<T>(_ body: (String) async throws -> T) async throws -> T {
        let server = try Subprocess("/usr/bin/env", ["python3", "-c", Self.script], timeout: .seconds(300))
        defer { kill(server.pid, SIGKILL) }
        return try await body("http://127.0.0.1:\(try await Subprocess.listeningPort(of: server.pid))")
    }

    func headers(in output: String) throws -> [String: String] {
        let answer = try jsonObject(try #require(output.split(separator: "\n").first.map(String.init)))
        return try #require(answer["headers"] as? [String: String])
    }

    @Test func secretsAreBlankedInTheProcessArgumentsWhileTheUploadRuns() async throws {
        try await withEchoServer { url in
            // The server holds its answer until this file exists, so hoist is
            // still running when its arguments are read: on a loaded machine a
            // fixed 3 s was once over before the first reading.
            let folder = TemporaryDirectory()
            let release = folder.path + "/release"
            let arguments = [
                "send",
                url.replacingOccurrences(of: "://", with: "://t0kenuser@")
                    + "/slow?api_key=k3yvalue&release=\(release)",
                "-u", "alice:s3cret", "-H", "Private-Token: abcdef", "-H", "X-Plain: visible", "-F", "a=b",
                "--header=X-Api-Key: zzz999", "--secret-header", "X-Plain", "-F", "password=hunter2",
                // curl's attached spellings, which the rewriter accepts too.
                "-HAuthorization-Extra: Bearer att4ched", "-sHX-Auth-Token: j0ined", "-Fapi_key=f0rmkey",
                // A target option's URL (the option table's flags are read by the same tokenizer).
                "--endpoint=http://minio:endp0intpw@127.0.0.1:9000",
                "--no-history", "-s",
            ]
            let send = try Subprocess(hoistBinary, arguments, environment: hoistEnvironment(), timeout: .seconds(60))
            // Blanked once hoist has read its arguments, before the server answers. A loaded
            // machine can take seconds to start hoist: look for up to 10 s, keeping the last
            // non-empty reading.
            var shown = ""
            for _ in 0..<200 {
                try await Task.sleep(for: .milliseconds(50))
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(send.pid)/cmdline"))) ?? Data()
                let read = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
                if !read.isEmpty { shown = read }
                if shown.contains("--no-history"), !shown.contains("hunter2") { break }
            }
            #expect(FileManager.default.createFile(atPath: folder.path + "/release", contents: nil))
            for secret in [
                "t0kenuser", "k3yvalue", "s3cret", "abcdef", "visible", "zzz999", "hunter2", "att4ched", "j0ined",
                "f0rmkey", "endp0intpw",
            ] {
                #expect(!shown.contains(secret), "\(secret) in \(shown)")
            }
            #expect(shown.contains("-u alice:****** -H Private-Token: ****** -H X-Plain: ******* -F a=b"), "\(shown)")
            #expect(shown.contains("--header=X-Api-Key: ******"), "\(shown)")
            let result = await send.result()
            #expect(result.status == 0)
            // What was blanked is what was sent.
            let sent = try headers(in: String(decoding: result.stdout, as: UTF8.self))
            #expect(sent["x-api-key"] == "zzz999")
            #expect(sent["authorization"] == "Basic " + Data("alice:s3cret".utf8).base64EncodedString())
            #expect(sent["private-token"] == "abcdef")
            #expect(sent["authorization-extra"] == "Bearer att4ched")
            #expect(sent["x-auth-token"] == "j0ined")
            #expect(sent["x-plain"] == "visible")
        }
    }

    @Test func errorsAboutABadURLOrHeaderDoNotRepeatTheSecret() async throws {
        for (arguments, secret) in [
            (["send", "https://T0KEN-abc@ho st/", "-F", "a=b"], "T0KEN-abc"),
            (["send", "https://u:pa55word@ho st/", "-F", "a=b"], "pa55word"),
            (["send", "http://127.0.0.1:9/", "-F", "a=b", "-H", "Authorization Bearer sekrit1"], "sekrit1"),
            (["send", "http://127.0.0.1:9/", "-F", "a=b", "-H", "Authorization: Bearer x\ny-sekrit2"], "sekrit2"),
            (["send", "http://127.0.0.1:9/?access_token=sekrit3", "-F", "a=b", "--retries", "0"], "sekrit3"),
        ] {
            let result = try await hoist(arguments)
            #expect(result.status != 0)
            #expect(!result.stderr.isEmpty)
            #expect(!result.stderr.contains(secret), "\(result.stderr)")
        }
    }

    /// `-H @file` reads headers as curl's headers files; `--secret-header` masks one in `-v`.
    @Test func headersComeFromAFileAndAMarkedHeaderIsMasked() async throws {
        let folder = TemporaryDirectory()
        let file = folder.file(
            "headers.txt",
            Array("# sent with every upload\r\nAuthorization: Bearer from-file-42\r\n\r\nX-Tenant:  acme \n".utf8))
        try await withEchoServer { url in
            let result = try await hoist([
                "send", url + "/echo", "-F", "a=b", "-H", "@" + file, "-H", "X-Plain: visible-value",
                "--secret-header", "x-plain", "-v", "--no-history",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let sent = try headers(in: result.stdout)
            #expect(sent["authorization"] == "Bearer from-file-42")
            #expect(sent["x-tenant"] == "acme")
            #expect(sent["x-plain"] == "visible-value")
            #expect(result.stderr.contains("> Authorization: Bearer ••••••"), "\(result.stderr)")
            #expect(result.stderr.contains("> X-Tenant: acme"))
            #expect(result.stderr.contains("> X-Plain: ••••••"))
            #expect(!result.stderr.contains("from-file-42") && !result.stderr.contains("visible-value"))
        }
        let missing = try await hoist(["send", "http://127.0.0.1:9/", "-F", "a=b", "-H", "@/no/such/headers"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("-H @/no/such/headers:"), "\(missing.stderr)")
        let bad = folder.file("bad.txt", Array("NoColonHere\n".utf8))
        let refused = try await hoist(["send", "http://127.0.0.1:9/", "-F", "a=b", "-H", "@" + bad])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("is not of the form 'Name: value'"), "\(refused.stderr)")
    }

    /// `-u user` asks for the password on the terminal without echoing it.
    @Test func aUserAloneIsAskedForThePasswordOnTheTerminal() async throws {
        let folder = TemporaryDirectory()
        try await withEchoServer { url in
            let expected = Data("alice:pass word!".utf8).base64EncodedString()
            let tmux = try await Tmux.start(width: 120, height: 20, in: folder)
            defer { Task { await tmux.kill() } }
            try await tmux.type(
                "XDG_STATE_HOME=\(folder.path) \(hoistBinary) send '\(url)/check?basic=\(expected)' -u alice -F a=b -s")
            try await tmux.press("Enter")
            try await tmux.waitFor("the prompt") {
                $0.contains { $0.contains("Enter host password for user 'alice':") }
            }
            try await tmux.type("pass word!")
            try await tmux.press("Enter")
            let screen = try await tmux.waitFor("the answer") { $0.contains { $0.contains("auth_ok") } }
            #expect(screen.contains { $0.contains(#"{"auth_ok": true}"#) }, "\(screen)")
            #expect(!screen.contains { $0.contains("pass word!") }, "the password was echoed")
        }
        // Without a terminal to ask on, a clear error before anything is sent.
        let detached = try await run(
            "/usr/bin/setsid", ["-w", hoistBinary, "send", "http://127.0.0.1:9/", "-u", "alice", "-F", "a=b"],
            environment: hoistEnvironment())
        #expect(detached.status == 2)
        #expect(detached.stderr.contains("-u alice: no terminal to ask the password on; give -u user:password"))
    }

    /// --netrc and --netrc-file, beside curl reading the same file: the same
    /// Authorization header reaches the server, and hoist never prints it.
    @Test func netrcCredentialsAreSentAsCurlSendsThem() async throws {
        try await withEchoServer { url in
            let home = TemporaryDirectory()
            let netrc = home.file(
                ".netrc",
                text: #"""
                    # work machines
                    machine example.com login bob password nope
                    machine 127.0.0.1
                      login "alice smith"
                      password "p@ss \"word\" #1"
                    macdef init
                    machine 127.0.0.1 login mallory password fromthemacro

                    default login anon password guest
                    """#, mode: 0o600)
            func viaCurl(_ url: String) async throws -> String? {
                let result = try await run("/usr/bin/curl", ["-sS", "--netrc-file", netrc, "-F", "a=b", url])
                return try headers(in: result.stdout)["authorization"]
            }
            func viaHoist(_ arguments: [String]) async throws -> (String?, RunResult) {
                let result = try await hoist(
                    ["send"] + arguments + ["-F", "a=b", "--no-history", "-v"], environment: ["HOME": home.path])
                #expect(result.status == 0, "\(result.stderr)")
                return (try headers(in: result.stdout)["authorization"], result)
            }
            let alice = "Basic " + Data(#"alice smith:p@ss "word" #1"#.utf8).base64EncodedString()
            let (sent, result) = try await viaHoist([url, "--netrc-file", netrc])
            #expect(sent == alice)
            #expect(try await viaCurl(url) == alice, "curl reads the file the same way")
            #expect(!result.stderr.contains("p@ss") && !result.stderr.contains(String(alice.dropFirst(6))))
            #expect(result.stderr.contains("> Authorization: Basic ••••••"), "\(result.stderr)")
            // Another host: the default entry, as curl takes it.
            let other = url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
            #expect(
                try await viaHoist([other, "--netrc-file", netrc]).0 == "Basic "
                    + Data("anon:guest".utf8).base64EncodedString())
            #expect(try await viaCurl(other) == "Basic " + Data("anon:guest".utf8).base64EncodedString())
            // --netrc reads ~/.netrc; -u wins over it.
            #expect(try await viaHoist([url, "--netrc"]).0 == alice)
            #expect(
                try await viaHoist([url, "--netrc", "-u", "carol:pw"]).0
                    == "Basic " + Data("carol:pw".utf8).base64EncodedString())
            let missing = try await hoist(["send", url, "--netrc-file", home.sub("none"), "-F", "a=b"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("netrc file \(home.sub("none")): no such file"), "\(missing.stderr)")
        }
    }
}
