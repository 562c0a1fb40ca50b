import Foundation
import Glibc
import Receiver
import TestSupport
import Testing

@testable import hoist

/// GCS resume against `hoist receive`, whose status query is faithful
/// (fake-gcs-server's ends the session: GCSSendTests pins that). Google's
/// own client checks the receiver speaks the protocol as Google's servers
/// do (ReceiverTests' GCSResumableMediaTests).
@Suite(.serialized) struct GCSResumeTests {
    static let size = 24 << 20

    /// A send of `size` random bytes to `gs://bkt/scans/`, killed once the journal holds 8 MiB.
    static func killedSend(_ receiver: Receiver, home: TemporaryDirectory) async throws -> String {
        try await KeptUploadTests.killedSend(
            ["gs://bkt/scans/", "--endpoint", receiver.baseURL, "--chunk-size", "1M"], size: size, home: home,
            environment: TusResumeTests.environment(home)
        ) { ($0.checkpoint?.offset ?? 0) >= 8 << 20 }
        return try #require(sha256(ofFile: home.path + "/备份 big.bin"))
    }

    /// The SHA-256 of the object `name` as the receiver serves it back (`alt=media`).
    static func stored(_ receiver: Receiver, _ name: String = "scans/备份 big.bin", token: String = "") async throws
        -> String
    {
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
        let read = try await run(
            "/bin/sh",
            [
                "-c",
                "curl -sf -H 'Authorization: Bearer \(token)' '\(receiver.baseURL)/storage/v1/b/bkt/o/\(escaped)?alt=media' | sha256sum",
            ])
        return String(read.stdout.prefix(64))
    }

    @Test func aKilledSendGoesOnFromTheByteTheServerHolds() async throws {
        try await withReceiver(configure: { $0.readBytesPerSecond = 16 << 20 }) { receiver, _ in
            let home = TemporaryDirectory()
            let environment = TusResumeTests.environment(home)
            let sha = try await Self.killedSend(receiver, home: home)
            let task = try await TusResumeTests.listed(home)
            #expect((task["upload_url"] as? String)?.contains("upload_id=") == true, "\(task)")
            let resume = try await hoist(["resume", "--json", "-s", "--no-history"], environment: environment)
            #expect(resume.status == 0, "\(resume.stderr)")
            let line = try jsonObject(try #require(resume.stdoutLines.last))
            #expect(line["ok"] as? Bool == true, "\(line)")
            let from = try #require(line["resumed_from"] as? Int, "\(line)")
            #expect(from >= 8 << 20 && from < Self.size, "resumed from \(from)")
            #expect(try await Self.stored(receiver) == sha, "the object differs from the file")
            let again = try await hoist(["resume", "--list"], environment: environment)
            #expect(again.stderr.contains("nothing to resume"), "\(again.stderr)")
        }
    }

    @Test func aSessionGoneFromTheServerStartsAnewAndSaysSo() async throws {
        try await withReceiver(configure: { $0.readBytesPerSecond = 16 << 20 }) { receiver, _ in
            let home = TemporaryDirectory()
            let environment = TusResumeTests.environment(home)
            let sha = try await Self.killedSend(receiver, home: home)
            let task = try await TusResumeTests.listed(home)
            let session = try #require(task["upload_url"] as? String)
            let cancelled = try await run(
                "/usr/bin/env", ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE", session])
            #expect(cancelled.stdout == "499", "the receiver cancels a session as GCS does: \(cancelled.stdout)")
            let resume = try await hoist(["resume", "--json", "--no-history"], environment: environment)
            #expect(resume.status == 0, "\(resume.stderr)")
            // A new session, from byte 0 (the row's note says the old one expired: GCSStateMachineTests).
            let line = try jsonObject(try #require(resume.stdoutLines.last))
            #expect(line["ok"] as? Bool == true && line["resumed_from"] is NSNull, "\(line)")
            #expect((line["upload_url"] as? String).map { $0 != session && $0.contains("upload_id=") } == true)
            #expect(try await Self.stored(receiver) == sha)
        }
    }

    @Test func aServiceAccountKeyIsExchangedForATokenOnceForManyFiles() async throws {
        let home = TemporaryDirectory()
        let key = home.path + "/key.pem"
        let made = try await run(
            "/bin/sh",
            [
                "-c",
                "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out '\(key)' 2>/dev/null && openssl pkey -in '\(key)' -pubout -out '\(key).pub'",
            ])
        try #require(made.status == 0, "\(made.stderr)")
        // The token endpoint checks the JWT with google-auth, Google's own library.
        let server = try Subprocess(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import http.server, json, sys, urllib.parse, threading
                from google.auth import jwt
                public, out = open(sys.argv[1]).read(), sys.argv[2]
                class Token(http.server.BaseHTTPRequestHandler):
                    def do_POST(self):
                        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers['Content-Length'])).decode())
                        try:
                            assert form['grant_type'] == ['urn:ietf:params:oauth:grant-type:jwt-bearer']
                            claims = jwt.decode(form['assertion'][0], certs=public, audience='http://127.0.0.1:%d/token' % port)
                            assert claims['iss'] == 'uploader@hoist-test.iam.gserviceaccount.com', claims
                            assert 'devstorage' in claims['scope'] and claims['exp'] - claims['iat'] == 3600
                            status, body = 200, {'access_token': 'granted-token', 'expires_in': 3599, 'token_type': 'Bearer'}
                        except Exception as e:
                            status, body = 400, {'error': 'invalid_grant', 'error_description': repr(e)}
                        with open(out, 'a') as f: f.write('%d\\n' % status)
                        data = json.dumps(body).encode()
                        self.send_response(status); self.send_header('Content-Type', 'application/json')
                        self.send_header('Content-Length', str(len(data))); self.end_headers(); self.wfile.write(data)
                    def log_message(self, *a): pass
                httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Token)
                port = httpd.server_address[1]
                with open(sys.argv[3] + '.tmp', 'w') as f: f.write(str(port))
                import os; os.rename(sys.argv[3] + '.tmp', sys.argv[3])
                httpd.serve_forever()
                """, key + ".pub", home.path + "/token-log", home.path + "/token-port",
            ], timeout: .seconds(300))
        defer { kill(server.pid, SIGKILL) }
        var port = 0
        for _ in 0..<100 where port == 0 {
            try await Task.sleep(for: .milliseconds(100))
            port = Int((try? String(contentsOfFile: home.path + "/token-port", encoding: .utf8)) ?? "") ?? 0
        }
        try #require(port > 0, "the token endpoint did not start")
        let pem = try String(contentsOfFile: key, encoding: .utf8)
        let account: [String: Any] = [
            "type": "service_account", "client_email": "uploader@hoist-test.iam.gserviceaccount.com",
            "private_key": pem, "token_uri": "http://127.0.0.1:\(port)/token",
        ]
        let keyFile = home.file("account.json", try JSONSerialization.data(withJSONObject: account).map { $0 })
        var files: [String] = []
        for index in 0..<4 {
            files += ["-T", home.file("scan \(index).bin", Array(repeating: UInt8(index), count: 300_000))]
        }
        try await withReceiver(configure: { $0.token = "granted-token" }) { receiver, _ in
            let result = try await hoist(
                ["send", "gs://bkt/in/"] + files + [
                    "--endpoint", receiver.baseURL, "--chunk-size", "256K", "--json", "-s", "--no-history",
                    "--no-journal",
                ], environment: ["GOOGLE_APPLICATION_CREDENTIALS": keyFile, "GOOGLE_OAUTH_ACCESS_TOKEN": ""])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutLines.count == 4)
            let log = (try? String(contentsOfFile: home.path + "/token-log", encoding: .utf8)) ?? ""
            #expect(log == "200\n", "one token for the four files: \(log)")
            #expect(!result.stdout.contains("granted-token") && !result.stderr.contains("granted-token"))
            for index in 0..<4 {
                let sha = try #require(sha256(ofFile: home.path + "/scan \(index).bin"))
                #expect(
                    try await Self.stored(receiver, "in/scan \(index).bin", token: "granted-token") == sha,
                    "scan \(index).bin")
            }
            // A key the token endpoint refuses: a clear message, nothing sent.
            let other = home.path + "/other.pem"
            _ = try await run("/bin/sh", ["-c", "openssl genpkey -algorithm RSA -out '\(other)' 2>/dev/null"])
            var wrong = account
            wrong["private_key"] = try String(contentsOfFile: other, encoding: .utf8)
            let wrongFile = home.file("wrong.json", try JSONSerialization.data(withJSONObject: wrong).map { $0 })
            let refused = try await hoist(
                ["send", "gs://bkt/in/x.bin", "-T", home.path + "/scan 0.bin", "--endpoint", receiver.baseURL]
                    + ["--retries", "0", "--no-history", "--no-journal"],
                environment: ["GOOGLE_APPLICATION_CREDENTIALS": wrongFile, "GOOGLE_OAUTH_ACCESS_TOKEN": ""])
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("the token endpoint refused uploader@hoist-test"), "\(refused.stderr)")
        }
    }
}

extension GCSResumeTests {
    @Test func gcloudsTokenIsUsedWhenNothingElseIsGiven() async throws {
        let home = TemporaryDirectory()
        _ = home.directory("bin")
        home.file(
            "bin/gcloud", text: "#!/bin/sh\n[ \"$*\" = 'auth print-access-token' ] && echo ya29.from-gcloud\n",
            mode: 0o755)
        let file = home.file("a.bin", Array(repeating: 1, count: 1000))
        try await withReceiver(configure: { $0.token = "ya29.from-gcloud" }) { receiver, _ in
            let path = home.path + "/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let clean = [
                "GOOGLE_OAUTH_ACCESS_TOKEN": "", "GOOGLE_APPLICATION_CREDENTIALS": "", "STORAGE_EMULATOR_HOST": "",
            ]
            let sent = try await hoist(
                ["send", "gs://bkt/a.bin", "-T", file, "--endpoint", receiver.baseURL, "--no-history", "--no-journal"],
                environment: clean.merging(["PATH": path]) { $1 })
            #expect(sent.status == 0, "\(sent.stderr)")
            // Without gcloud nothing authorizes the request: the receiver's 401 is named.
            let refused = try await hoist(
                ["send", "gs://bkt/b.bin", "-T", file, "--endpoint", receiver.baseURL, "--retries", "0"]
                    + ["--no-history", "--no-journal"], environment: clean.merging(["PATH": "/usr/bin:/bin"]) { $1 })
            #expect(refused.status == 1 && refused.stderr.contains("401"), "\(refused.stderr)")
        }
    }
}

/// The UI with a `gs://` target: its dialog, the top bar, an upload of a
/// staged file, and a killed send's upload resumed with R, its row saying
/// where it went on from.
@Suite(.serialized) struct GCSUITests {
    @Test func aGCSTargetInTheUIAndAKilledUploadResumedWithR() async throws {
        try await withReceiver(configure: { $0.readBytesPerSecond = 16 << 20 }) { receiver, _ in
            let home = TemporaryDirectory()
            let sha = try await GCSResumeTests.killedSend(receiver, home: home)
            let card = home.file("身份证 正面.jpg", Array(repeating: 9, count: 50_000))
            let tmux = try await JournalTests.startUI(
                home, arguments: "tui gs://bkt/cards/ --endpoint \(receiver.baseURL) '\(card)'")
            defer { Task { await tmux.kill() } }
            try await tmux.waitFor("the adopted upload and the gs:// target") {
                $0.text.contains("1 interrupted upload") && $0.text.contains("GCS")
                    && $0.text.contains("gs://bkt/cards/") && $0.text.contains("身份证 正面.jpg")
            }
            try await tmux.press("R")
            let resumed = try await tmux.waitFor("the upload done", timeout: .seconds(120)) {
                $0.text.contains("✔ 1") && $0.text.contains("resumed at")
            }
            #expect(resumed.text.contains("备份 big.bin"))
            #expect(try await GCSResumeTests.stored(receiver) == sha)
            try await tmux.press("t")
            let dialog = try await tmux.waitFor("the target dialog") {
                $0.text.contains("Endpoint") && $0.text.contains(receiver.baseURL)
            }
            #expect(dialog.text.contains("gs://bkt/cards/"), "\(dialog.text)")
            try await tmux.press("Escape")
            try await tmux.press("u")
            try await tmux.waitFor("the staged card uploaded", timeout: .seconds(60)) { $0.text.contains("✔ 2") }
            #expect(
                try await GCSResumeTests.stored(receiver, "cards/身份证 正面.jpg")
                    == sha256(Array(repeating: 9, count: 50_000)))
            try await tmux.press("q")
            try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }
        }
    }
}
