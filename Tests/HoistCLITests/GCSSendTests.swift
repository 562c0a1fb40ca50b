import Foundation
import Glibc
import TestSupport
import Testing

@testable import hoist

/// `hoist send gs://…` against fake-gcs-server, an emulator no one here
/// wrote; Python reads back what it stored. Resume is tested against
/// `hoist receive` (GCSResumeTests): the fake's status query ends a session.
@Suite(.serialized) struct GCSSendTests {
    let files = TemporaryDirectory()

    func randomFile(_ name: String, _ size: Int, seed: UInt64) -> (path: String, sha: String) {
        var generator = SeededGenerator(state: seed)
        let bytes = randomBytes(size, using: &generator)
        return (files.file(name, bytes), sha256(bytes))
    }

    func fake() async throws -> FakeGCSPeer {
        let peer = try await FakeGCSPeer.start()
        try await peer.createBucket("scans")
        return peer
    }

    @Test func smallFilesGoInOneRequestAndALargeOneInChunksUnderAPrefix() async throws {
        let peer = try await fake()
        let card = randomFile("身份证 正面.jpg", 200_000, seed: 1)
        let large = randomFile("big.bin", (3 << 20) + 5, seed: 2)
        let empty = randomFile("empty.txt", 0, seed: 3)
        let result = try await hoist(
            [
                "send", "gs://scans/2026/", "-T", card.path, "-T", large.path, "-T", empty.path, "--endpoint",
                peer.endpoint, "--chunk-size", "256K", "--json", "--no-history", "--no-journal",
            ])
        #expect(result.status == 0, "\(result.stderr)\n\(peer.logTail())")
        let lines = try result.stdoutLines.map(jsonObject)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0["ok"] as? Bool == true }, "\(result.stdout)")
        let stored = try await peer.objects("scans", prefix: "2026/")
        #expect(stored["2026/身份证 正面.jpg"]?.sha256 == card.sha)
        #expect(stored["2026/big.bin"]?.sha256 == large.sha)
        #expect(stored["2026/big.bin"]?.size == (3 << 20) + 5)
        #expect(stored["2026/empty.txt"]?.size == 0)
        let big = try #require(lines.first { $0["name"] as? String == "big.bin" })
        #expect((big["upload_url"] as? String)?.contains("upload_id=") == true, "a resumable session: \(big)")
        #expect(big["bytes_sent"] as? Int == (3 << 20) + 5)
        let object = try #require(big["json"] as? [String: Any])
        #expect(object["size"] as? String == String((3 << 20) + 5))
        let small = try #require(lines.first { $0["name"] as? String == "身份证 正面.jpg" })
        #expect(small["upload_url"] is NSNull, "one media request, no session: \(small)")
        #expect((small["json"] as? [String: Any])?["contentType"] as? String == "image/jpeg")
    }

    @Test func manyFilesFromAFolderEachBecomeAnObject() async throws {
        let peer = try await fake()
        var expected: [String: String] = [:]
        _ = files.directory("batch")
        _ = files.directory("batch/sub")
        for index in 0..<40 {
            // Names under the folder keep their subfolder: in/sub/scan 1.png.
            let name = (index % 2 == 0 ? "" : "sub/") + "scan \(index).png"
            let file = randomFile("batch/" + name, 1_000 + index * 37, seed: UInt64(100 + index))
            expected["in/" + name] = file.sha
        }
        let result = try await hoist(
            [
                "send", "gs://scans/in/", "--each", "file=@\(files.path)/batch/**", "--endpoint", peer.endpoint,
                "--concurrency", "8", "-s", "--no-history", "--no-journal",
            ], environment: ["HOME": files.path])
        #expect(result.status == 0, "\(result.stderr)\n\(peer.logTail())")
        let stored = try await peer.objects("scans", prefix: "in/")
        #expect(stored.count == 40)
        for (name, sha) in expected { #expect(stored[name]?.sha256 == sha, "\(name)") }
    }

    @Test func badGCSTargetsAreRefusedBeforeAnythingIsSent() async throws {
        let file = randomFile("a.txt", 10, seed: 9)
        let other = randomFile("b.txt", 10, seed: 10)
        let cases: [([String], String)] = [
            (["gs://UPPER/x", "-T", file.path], "names no GCS bucket"),
            (["gs://ab/x", "-T", file.path], "names no GCS bucket"),
            (["gs://scans/x", "-T", file.path, "-T", other.path], "end the URL with / to put them under a prefix"),
            (["gs://scans/x", "-F", "note=hi", "-F", "file=@\(file.path)"], "it takes no fields"),
            (["gs://scans/x", "-T", "-"], "standard input cannot go to GCS yet"),
            (["gs://scans/x", "-T", files.path + "/missing.bin"], "missing.bin"),
        ]
        for (arguments, message) in cases {
            let result = try await hoist(
                ["send"] + arguments + ["--endpoint", "http://127.0.0.1:9", "--no-history", "--no-journal"],
                input: { $0.closeFile() })
            #expect(result.status != 0 && result.status != 1, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// A server whose object is not the file (a wrong size or CRC-32C in its
    /// answer) fails the upload, with both values named: nothing is taken on trust.
    @Test func anObjectThatDiffersFromTheFileFailsTheUpload() async throws {
        let folder = TemporaryDirectory()
        let server = try Subprocess(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import http.server, json, os, sys
                class Lying(http.server.BaseHTTPRequestHandler):
                    def do_POST(self):
                        size = int(self.headers['Content-Length']); self.rfile.read(size)
                        short = 'short' in self.path
                        body = json.dumps({'kind': 'storage#object', 'size': str(size - 1 if short else size), 'crc32c': 'AAAAAA=='}).encode()
                        self.send_response(200); self.send_header('Content-Type', 'application/json')
                        self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body)
                    def log_message(self, *a): pass
                httpd = http.server.HTTPServer(('127.0.0.1', 0), Lying)
                open(sys.argv[1] + '.tmp', 'w').write(str(httpd.server_address[1])); os.rename(sys.argv[1] + '.tmp', sys.argv[1])
                httpd.serve_forever()
                """, folder.path + "/port",
            ], timeout: .seconds(120))
        defer { kill(server.pid, SIGKILL) }
        var port = 0
        for _ in 0..<100 where port == 0 {
            try await Task.sleep(for: .milliseconds(100))
            port = Int((try? String(contentsOfFile: folder.path + "/port", encoding: .utf8)) ?? "") ?? 0
        }
        try #require(port > 0)
        let file = randomFile("card.jpg", 5_000, seed: 12)
        for (name, message) in [
            ("card.jpg", "the object GCS stored differs from the file: its crc32c is AAAAAA==, the file's "),
            ("short.jpg", "GCS stored 4999 bytes of the 5000-byte file"),
        ] {
            let result = try await hoist(
                ["send", "gs://scans/\(name)", "-T", file.path, "--endpoint", "http://127.0.0.1:\(port)"]
                    + ["--retries", "0", "--no-history", "--no-journal"])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
    }

    @Test func aTokenGoesAsBearerAndIsNeverPrinted() async throws {
        let peer = try await fake()
        let file = randomFile("t.txt", 100, seed: 11)
        let token = "ya29.secret-token-value"
        let result = try await hoist(
            [
                "send", "gs://scans/t.txt", "-T", file.path, "--endpoint", peer.endpoint, "--gcs-token", token, "-v",
                "--no-history", "--no-journal",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Authorization: Bearer"), "\(result.stderr)")
        #expect(!result.stderr.contains(token) && !result.stdout.contains(token))
        let fromEnvironment = try await hoist(
            ["send", "gs://scans/t2.txt", "-T", file.path, "--endpoint", peer.endpoint, "-v", "--no-history"],
            environment: ["GOOGLE_OAUTH_ACCESS_TOKEN": token])
        #expect(fromEnvironment.status == 0 && fromEnvironment.stderr.contains("Authorization: Bearer"))
        #expect(!fromEnvironment.stderr.contains(token))
    }

    @Test func aKeptSessionIsCancelledByResumeDiscard() async throws {
        let peer = try await fake()
        let home = TemporaryDirectory()
        let environment = TusResumeTests.environment(home)
        try await KeptUploadTests.killedSend(
            ["gs://scans/kept.bin", "--endpoint", peer.endpoint, "--chunk-size", "1M", "--limit-rate", "1M"],
            size: 16 << 20, home: home, environment: environment
        ) { ($0.checkpoint?.offset ?? 0) >= 1 << 20 }
        let task = try await TusResumeTests.listed(home)
        let id = try #require(task["id"] as? Int)
        #expect((task["upload_url"] as? String)?.contains("upload_id=") == true, "\(task)")
        let discard = try await hoist(["resume", "--discard", "#\(id)"], environment: environment)
        #expect(discard.status == 0, "\(discard.stderr)\n\(peer.logTail())")
        #expect(discard.stderr.contains("the GCS upload session was cancelled"), "\(discard.stderr)")
        let list = try await hoist(["resume", "--list"], environment: environment)
        #expect(!list.stdout.contains("kept.bin"), "\(list.stdout)")
    }

    /// Pins the fake's unfaithful answers (../shared/PEERS.md), so that a
    /// version that fixes them is noticed and resume tested against it too.
    @Test func fakeGCSServersStatusQueryEndsTheSessionAndItsDeleteDoesNot() async throws {
        let peer = try await fake()
        let output = try await peer.python(
            """
            def begin(name):
                s, h, b = request('POST', ENDPOINT + '/upload/storage/v1/b/scans/o?uploadType=resumable&name=' + name, {'X-Upload-Content-Length': '600000'}, b'')
                return h['Location']
            chunk = b'x' * 262144
            session = begin('q')
            first = request('PUT', session, {'Content-Range': 'bytes 0-262143/600000'}, chunk)[0]
            status = request('PUT', session, {'Content-Range': 'bytes */600000'}, b'')[0]
            after = request('PUT', session, {'Content-Range': 'bytes 262144-524287/600000'}, chunk)[0]
            other = begin('q2')
            deleted = request('DELETE', other, {}, None)[0]
            after_delete = request('PUT', other, {'Content-Range': 'bytes 0-262143/600000'}, chunk)[0]
            print(first, status, after, deleted, after_delete)
            """)
        // Faithful: 308 308 308 499 404 (Google's documented answers).
        #expect(
            output.trimmingCharacters(in: .whitespacesAndNewlines) == "308 200 404 499 308",
            "fake-gcs-server changed: \(output); if its status query is faithful now, test resume against it too")
    }
}

extension GCSSendTests {
    /// `--gcs-token` in both spellings is blanked from `/proc/PID/cmdline` while the upload runs.
    @Test func theGCSTokenIsBlankedInTheProcessArguments() async throws {
        let peer = try await fake()
        let file = randomFile("slow.bin", 1 << 20, seed: 13)
        for spelling in [["--gcs-token", "ya29.s3cr3t-one"], ["--gcs-token=ya29.s3cr3t-two"]] {
            let send = try Subprocess(
                hoistBinary,
                ["send", "gs://scans/slow.bin", "-T", file.path, "--endpoint", peer.endpoint, "--limit-rate", "256K"]
                    + spelling + ["-s", "--no-history", "--no-journal"], environment: hoistEnvironment(),
                timeout: .seconds(60))
            var shown = ""
            for _ in 0..<200 {
                try await Task.sleep(for: .milliseconds(50))
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(send.pid)/cmdline"))) ?? Data()
                let read = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\0", with: " ")
                if !read.isEmpty { shown = read }
                if shown.contains("--no-journal"), !shown.contains("s3cr3t") { break }
            }
            #expect(!shown.contains("s3cr3t") && shown.contains("--gcs-token"), "\(shown)")
            let result = await send.result()
            #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        }
    }
}
