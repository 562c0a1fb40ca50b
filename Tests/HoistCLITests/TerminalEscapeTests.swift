import Foundation
import Glibc
import TestSupport
import Testing

/// Nothing a server (or a client of `hoist receive`) sends reaches the
/// terminal raw: no OSC (window title, clipboard), no CSI, no C1 control.
@Suite struct TerminalEscapeTests {
    /// What the issue's server answered: a message that sets the window title and turns text red.
    static let hostileMessage = "\u{1B}]0;pwned\u{07} \u{1B}[31mred \u{9B}2J\u{7F}"

    /// A server (Python's http.server, not Hoist's) that reads the body and
    /// answers the hostile JSON at /json, the same as raw bytes at /raw.
    static let script = #"""
        import http.server, json, sys
        message = sys.argv[1]
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path.startswith("/raw"):
                    body, kind = ("title " + message + "\n").encode(), "text/plain"
                else:
                    body, kind = json.dumps({"RETCODE": "1", "RETMSG": message}).encode(), "application/json"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args): pass
        http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler).serve_forever()
        """#

    func withHostileServer<T>(_ body: (String) async throws -> T) async throws -> T {
        let server = try Subprocess(
            "/usr/bin/env", ["python3", "-c", Self.script, Self.hostileMessage], timeout: .seconds(300))
        defer { kill(server.pid, SIGKILL) }
        let port = try await Subprocess.listeningPort(of: server.pid)
        return try await body("http://127.0.0.1:\(port)")
    }

    /// No ESC, BEL, DEL or C1 control; the hostile bytes shown escaped instead.
    func expectNothingRaw(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let raw = text.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
        }
        #expect(
            raw.isEmpty, "\(what) holds raw controls \(raw.map { String($0.value, radix: 16) })",
            sourceLocation: sourceLocation)
    }

    @Test func aServerMessageIsShownEscapedOnStderrAndInTheHistory() async throws {
        let state = TemporaryDirectory()
        let environment = ["XDG_STATE_HOME": state.path]
        try await withHostileServer { url in
            let sent = try await hoist(
                [
                    "send", url + "/json", "-F", "a=b", "--expect", "RETCODE=0000", "--message-path", "RETMSG",
                    "--retries", "0",
                ], environment: environment)
            #expect(sent.status == 1)
            expectNothingRaw(sent.stderr, "stderr")
            #expect(sent.stderr.contains(#"\x1b]0;pwned\x07 \x1b[31mred \u{9b}2J\x7f"#), "\(sent.stderr)")
            // The body went to a pipe, not a terminal: as curl, the bytes the server sent.
            #expect(sent.stdout.contains(#"\u001b]0;pwned"#))

            let history = try await hoist(["history"], environment: environment)
            expectNothingRaw(history.stdout, "hoist history")
            #expect(history.stdout.contains(#"\x1b]0;pwned"#) || history.stdout.contains(#"\u001b]0;pwned"#))

            let json = try await hoist(["history", "--json"], environment: environment)
            expectNothingRaw(json.stdout, "hoist history --json")
            let entry = try jsonObject(try #require(json.stdoutLines.last))
            #expect(entry["message"] as? String == Self.hostileMessage, "escaped, the JSON still holds the message")
        }
    }

    @Test func jsonLinesEscapeDELAndC1Too() async throws {
        try await withHostileServer { url in
            let sent = try await hoist(["send", url + "/json", "-F", "a=b", "--json", "--no-history"])
            #expect(sent.status == 0)
            expectNothingRaw(sent.stdout, "--json")
            #expect(sent.stdout.contains(#"\u009b2J\u007f"#))
            let line = try jsonObject(try #require(sent.stdoutLines.first))
            let answer = try #require(line["json"] as? [String: Any])
            #expect(answer["RETMSG"] as? String == Self.hostileMessage)
        }
    }

    /// A hostile filename and field name in `-v` and in the progress rows.
    @Test func verboseOutputEscapesAFilenameAndAFieldName() async throws {
        let files = TemporaryDirectory()
        let path = files.file("photo.jpg", Array("jpeg".utf8))
        try await withHostileServer { url in
            let sent = try await hoist([
                "send", url + "/json", "-v", "--no-history",
                "-F", "f\u{1B}[2J=@\(path);filename=\"\u{1B}]52;c;cHduZWQ=\u{07}\u{9B}.jpg\"",
            ])
            #expect(sent.status == 0)
            expectNothingRaw(sent.stderr, "-v")
            #expect(sent.stderr.contains("]52;c;cHduZWQ="), "\(sent.stderr)")
        }
    }

    /// On a terminal, a body with escape sequences is a warning, not the
    /// bytes: the pane's title stays. `-o FILE` keeps the bytes whole.
    @Test func aBodyWithEscapesIsNotPrintedToATerminal() async throws {
        let folder = TemporaryDirectory()
        try await withHostileServer { url in
            let tmux = try await Tmux.start(width: 120, height: 20, in: folder)
            defer { Task { await tmux.kill() } }
            let environment = "XDG_STATE_HOME=\(folder.path)"
            try await tmux.type("\(environment) \(hoistBinary) send \(url)/raw -F a=b -s; echo \"exit=$?\"")
            try await tmux.press("Enter")
            let screen = try await tmux.waitFor("the warning") { $0.contains { $0.hasPrefix("exit=") } }
            let text = screen.joined(separator: "\n")
            #expect(text.contains("is binary or holds terminal escape sequences, so it is not printed here"), "\(text)")
            #expect(text.contains("exit=0"))
            #expect(try await tmux.title() != "pwned")

            try await tmux.type(
                "\(environment) \(hoistBinary) send \(url)/raw -F a=b -s -o answer.txt; echo \"done=$?\"")
            try await tmux.press("Enter")
            try await tmux.waitFor("the second run") { $0.contains { $0.hasPrefix("done=") } }
            let saved = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/answer.txt"))
            #expect(saved == Data(("title " + Self.hostileMessage + "\n").utf8))
        }
    }

    /// `hoist receive` logs what clients send, escaped: a request line
    /// with controls and C1 bytes (NIO refuses it: 400), and an upload whose
    /// field and file names hold escape sequences.
    @Test func theReceiveLogHoldsNothingRawFromAClient() async throws {
        let folder = TemporaryDirectory()
        let receiver = try Subprocess(
            hoistBinary, ["receive", "--port", "0", "--dir", folder.path], environment: hoistEnvironment(),
            timeout: .seconds(120))
        let port = try await Subprocess.listeningPort(of: receiver.pid)
        let raw = try await run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import socket, sys
                for target in [b"/upload?\\xc2\\x9d0;pwned\\xc2\\x9c", b"/up\\x1b]0;x\\x07", b"/upload\\xc2\\x9b31m"]:
                    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                    s.sendall(b"POST " + target + b" HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 0\\r\\n\\r\\n")
                    print(s.recv(100).split(b"\\r\\n")[0].decode())
                """, "\(port)",
            ])
        #expect(raw.stdoutLines.allSatisfy { $0.hasPrefix("HTTP/1.1 400") }, "\(raw.stdout) \(raw.stderr)")
        let files = TemporaryDirectory()
        let path = files.file("a.txt", Array("hello".utf8))
        let curl = try await run(
            "/usr/bin/curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}",
                "-F", "n\u{1B}]0;pwned\u{07}=@\(path);filename=\"\u{9B}31m\u{1B}]0;x\u{07}.txt\"",
                "http://127.0.0.1:\(port)/upload",
            ])
        #expect(curl.stdout == "200")
        kill(receiver.pid, SIGINT)
        let log = String(decoding: await receiver.result().stdout, as: UTF8.self)
        expectNothingRaw(log, "the receive log")
        #expect(log.contains("POST /upload 200 1 file"), "\(log)")
    }
}
