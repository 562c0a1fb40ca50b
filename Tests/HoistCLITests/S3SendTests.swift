import Foundation
import Glibc
import TestSupport
import Testing

/// `hoist send s3://…` against moto_server, with signature checks on; boto3
/// reads back what was stored.
@Suite(.serialized) struct S3SendTests {
    let files = TemporaryDirectory()

    func randomFile(_ name: String, _ size: Int, seed: UInt64) -> (path: String, sha: String) {
        var generator = SeededGenerator(state: seed)
        let bytes = randomBytes(size, using: &generator)
        return (files.file(name, bytes), sha256(bytes))
    }

    /// moto with a bucket `photos` and signatures checked; the environment that holds a valid key.
    func moto() async throws -> (MotoPeer, [String: String]) {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let user = try await moto.requireSignatures()
        return (
            moto,
            [
                "AWS_ACCESS_KEY_ID": user.key, "AWS_SECRET_ACCESS_KEY": user.secret, "AWS_PROFILE": "",
                "AWS_ENDPOINT_URL": moto.endpoint, "HOME": files.path,
            ]
        )
    }

    @Test func filesGoUnderAPrefixAndALargeOneInParts() async throws {
        let (moto, environment) = try await moto()
        let small = randomFile("a b.jpg", 200_000, seed: 1)
        let large = randomFile("big.bin", 12 << 20, seed: 2)
        let result = try await hoist(
            [
                "send", "s3://photos/2026/", "-T", small.path, "-T", large.path, "--part-size", "5M", "--json",
                "--no-history", "--no-journal",
            ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        let lines = try result.stdoutLines.map(jsonObject)
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0["ok"] as? Bool == true })
        let a = try await moto.object("photos", "2026/a b.jpg")
        #expect(a.sha256 == small.sha)
        let big = try await moto.object("photos", "2026/big.bin")
        #expect(big.sha256 == large.sha)
        #expect(big.etag.hasSuffix("-3\""))
        // The secret is nowhere in what hoist printed.
        #expect(!result.stdout.contains(environment["AWS_SECRET_ACCESS_KEY"]!))
        #expect(!result.stderr.contains(environment["AWS_SECRET_ACCESS_KEY"]!))
    }

    @Test func aKilledMultipartSendIsResumedAndOnlyTheMissingPartsGoUp() async throws {
        let (moto, environment) = try await moto()
        let home = TemporaryDirectory()
        var env = environment
        env["HOME"] = home.path
        env["XDG_STATE_HOME"] = home.path + "/state"
        let made = try await run(
            "/bin/sh",
            [
                "-c",
                "head -c \(100 << 20) /dev/urandom > '\(home.path)/db 2026.bin' && sha256sum '\(home.path)/db 2026.bin'",
            ])
        let sha = String(made.stdout.prefix(64))
        // moto, checking signatures, refuses non-ASCII keys however they
        // are signed (../shared/PEERS.md); its log keeps a space as %20.
        let parts = "\"PUT /photos/db/db%202026.bin?partNumber="
        let send = try Subprocess(
            hoistBinary,
            [
                "send", "s3://photos/db/", "-T", home.path + "/db 2026.bin", "--part-size", "5M", "--part-concurrency",
                "2",
                // Slow enough that the kill comes before the end on a busy machine:
                // at 40M, one full-suite run's poll came late, after all 100 MB had
                // gone and the upload was completed.
                "--limit-rate", "20M", "--json", "-s", "--no-history",
            ], environment: hoistEnvironment(env))
        try await JournalTests.waitUntil("six parts on the server", timeout: .seconds(120)) {
            moto.requests(containing: parts).count >= 6
        }
        kill(send.pid, SIGKILL)
        let killed = await send.result()
        #expect(killed.status == 128 + SIGKILL, "it finished before the kill")
        try await Task.sleep(for: .milliseconds(300))  // a part cut by the kill ends on the server
        let listed = try await moto.python(
            """
            uploads = s3.list_multipart_uploads(Bucket="photos").get("Uploads", [])
            if not uploads: print("none")
            for upload in uploads[:1]:
                print(" ".join(str(p["PartNumber"]) for p in s3.list_parts(Bucket="photos", Key=upload["Key"], UploadId=upload["UploadId"]).get("Parts", [])))
            """
        )
        try #require(!listed.contains("none"), "no multipart upload left at the kill: \(moto.logTail())")
        let held = listed.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(held.count >= 4)
        let before = moto.requests(containing: parts).count

        let list = try await hoist(["resume", "--list", "--json"], environment: env)
        #expect(list.status == 0, "\(list.stderr)\n\(moto.logTail())")
        #expect(list.stdoutLines.count == 1)
        let resume = try await hoist(["resume", "--json", "-s", "--no-history"], environment: env)
        #expect(resume.status == 0, "\(resume.stderr)\n\(moto.logTail())")
        let line = try jsonObject(try #require(resume.stdoutLines.last))
        #expect(line["ok"] as? Bool == true)
        #expect((line["resumed_from"] as? Int ?? 0) >= (held.count - 2) * (5 << 20))
        let stored = try await moto.object("photos", "db/db 2026.bin")
        #expect(stored.sha256 == sha)
        #expect(stored.etag.hasSuffix("-20\""))
        // A part the server held goes up again only if its answer never
        // reached the journal (at most the 2 on the wire at the kill): the
        // server lists no CRC32 to vouch for it. Together they make all 20.
        let sentAfter = Set(
            moto.requests(containing: parts).dropFirst(before).compactMap { line -> Int? in
                guard let range = line.range(of: "partNumber=") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            })
        #expect(sentAfter.intersection(held).count <= 2, "\(sentAfter) sent again; the server held \(held)")
        #expect(sentAfter.union(held) == Set(1...20))
        #expect(try await moto.openUploads("photos") == 0)
    }

    @Test func storageClassACLContentTypeAndMetadataReachTheObject() async throws {
        let (moto, environment) = try await moto()
        let file = randomFile("notes.bin", 5000, seed: 6)
        let result = try await hoist(
            [
                "send", "s3://photos/notes.txt", "-T", file.path, "--storage-class", "STANDARD_IA", "--acl",
                "public-read", "--content-type", "text/plain; charset=utf-8", "-H", "x-amz-meta-batch: 42",
                "--no-history", "--no-journal",
            ], environment: environment)
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        let head = try await moto.python(
            """
            h = s3.head_object(Bucket="photos", Key="notes.txt")
            acl = s3.get_object_acl(Bucket="photos", Key="notes.txt")
            public = any(g["Grantee"].get("URI", "").endswith("AllUsers") and g["Permission"] == "READ" for g in acl["Grants"])
            print(json.dumps([h.get("StorageClass"), h["ContentType"], h["Metadata"], public]))
            """)
        let fields = try JSONSerialization.jsonObject(with: Data(head.utf8)) as! [Any]
        #expect(fields[0] as? String == "STANDARD_IA")
        #expect(fields[1] as? String == "text/plain; charset=utf-8")
        #expect(fields[2] as? [String: String] == ["batch": "42"])
        #expect(fields[3] as? Bool == true)
        // By default each object goes with its CRC32, which moto keeps.
        let crc = try await moto.crc32("photos", "notes.txt")
        #expect(crc.stored == crc.computed)

        let md5 = try await hoist(
            ["send", "s3://photos/md5.txt", "-T", file.path, "--checksum", "md5", "--no-history", "--no-journal"],
            environment: environment)
        #expect(md5.status == 0, "\(md5.stderr)\n\(moto.logTail())")
        #expect(try await moto.crc32("photos", "md5.txt").stored == nil)
    }

    @Test func aProfileNamesTheBucketPrefixEndpointAndOptions() async throws {
        let (moto, environment) = try await moto()
        let config = TemporaryDirectory()
        _ = config.directory("hoist")
        config.file(
            "hoist/profiles.toml",
            text: """
                [backups]
                transfer = "s3"
                bucket = "photos"
                prefix = "nightly"
                endpoint = "${MOTO}"
                part_size = "5M"
                storage_class = "STANDARD_IA"

                [bad]
                url = "https://example.com/upload"
                bucket = "photos"

                [incomplete]
                transfer = "s3"
                region = "eu-west-1"
                """)
        var env = environment
        env["XDG_CONFIG_HOME"] = config.path
        env["AWS_ENDPOINT_URL"] = nil
        env["MOTO"] = moto.endpoint
        let file = randomFile("tape.bin", 11 << 20, seed: 7)
        let sent = try await hoist(
            ["send", "--profile", "backups", "-T", file.path, "--no-history", "--no-journal"], environment: env)
        #expect(sent.status == 0, "\(sent.stderr)\n\(moto.logTail())")
        let stored = try await moto.object("photos", "nightly/tape.bin")
        #expect(stored.sha256 == file.sha)
        #expect(stored.etag.hasSuffix("-3\""))  // 5 MiB parts, from the profile
        let bad = try await hoist(["send", "--profile", "bad", "-T", file.path], environment: env)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("bucket: goes with transfer = \"s3\""), "\(bad.stderr)")
        let incomplete = try await hoist(["send", "--profile", "incomplete", "-T", file.path], environment: env)
        #expect(incomplete.status == 2)
        #expect(incomplete.stderr.contains("needs bucket"), "\(incomplete.stderr)")
    }

    @Test func aWrongSecretExitsOneNamingSignatureDoesNotMatch() async throws {
        let (moto, environment) = try await moto()
        let file = randomFile("x.jpg", 1000, seed: 3)
        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let result = try await hoist(
            ["send", "s3://photos/x.jpg", "-T", file.path, "--retries", "0", "--no-history", "--no-journal"],
            environment: wrong)
        #expect(result.status == 1)
        #expect(result.stderr.contains("SignatureDoesNotMatch"), "\(result.stderr)")
        #expect(!result.stderr.contains("not-the-secret"))
        #expect(moto.requests(containing: "PUT /photos/x.jpg").count == 1)
    }

    /// A clock check in front of moto (which never checks the request time):
    /// a request signed more than 15 minutes from this machine's clock is
    /// refused as AWS refuses it, `RequestTimeTooSkewed`, with the times in
    /// the XML (`dates`) or only in the `Date` header (`header`); every other
    /// request goes on to moto as it came; `always` acts a server whose clock
    /// runs away, an hour ahead of whatever time is signed. Each refusal is a
    /// line in `refused`.
    static let clockCheck = #"""
        import http.client, http.server, sys, time, email.utils, datetime
        upstream, mode, refused = sys.argv[1], sys.argv[2], sys.argv[3]
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def handle_any(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                stamp = self.headers.get("X-Amz-Date", "")
                signed = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
                now = datetime.datetime.now(datetime.timezone.utc)
                if mode == "always": now = signed + datetime.timedelta(hours=1)
                if abs((now - signed).total_seconds()) > 900:
                    open(refused, "a").write(self.command + " " + self.path + "\n")
                    times = "" if mode == "header" else (
                        "<RequestTime>%s</RequestTime><ServerTime>%s</ServerTime>" % (stamp, now.strftime("%Y-%m-%dT%H:%M:%SZ")))
                    answer = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>RequestTimeTooSkewed</Code>"
                        "<Message>The difference between the request time and the current time is too large.</Message>"
                        + times + "<MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds></Error>").encode()
                    self.send_response(403)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                    return
                connection = http.client.HTTPConnection(upstream)
                connection.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for name, value in self.headers.items(): connection.putheader(name, value)
                connection.endheaders(body)
                response = connection.getresponse()
                data = response.read()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = handle_any
            def log_message(self, *args): pass
        http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler).serve_forever()
        """#

    /// A machine an hour behind the server (`HOIST_S3_CLOCK_OFFSET=-3600`):
    /// the first request is refused as skewed, the engine learns the
    /// server's clock from the answer and signs by it from then on.
    @Test(arguments: ["dates", "header"])
    func aSkewedClockIsCorrectedFromTheServersAnswer(_ mode: String) async throws {
        let (moto, environment) = try await moto()
        let refused = files.sub("refused-\(mode).log")
        let check = try Subprocess(
            "/usr/bin/env",
            ["python3", "-c", Self.clockCheck, String(moto.endpoint.dropFirst("http://".count)), mode, refused],
            timeout: .seconds(300))
        defer { kill(check.pid, SIGKILL) }
        let proxy = "http://127.0.0.1:\(try await Subprocess.listeningPort(of: check.pid))"
        var skewed = environment
        skewed["AWS_ENDPOINT_URL"] = proxy
        skewed["HOIST_S3_CLOCK_OFFSET"] = "-3600"
        let small = randomFile("small.jpg", 100_000, seed: 7)
        let large = randomFile("large.bin", 11 << 20, seed: 8)
        let result = try await hoist(
            [
                "send", "s3://photos/clock/", "-T", small.path, "-T", large.path, "--part-size", "5M", "--retries", "0",
                "--concurrency", "1", "--json", "--no-history", "--no-journal",
            ], environment: skewed)
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        #expect(try await moto.object("photos", "clock/small.jpg").sha256 == small.sha)
        let big = try await moto.object("photos", "clock/large.bin")
        #expect(big.sha256 == large.sha && big.etag.hasSuffix("-3\""))
        let refusals = ((try? String(contentsOfFile: refused, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(refusals.count == 1, "one refusal teaches the clock to every later request: \(refusals)")

    }

    /// A server still refusing once its clock was learnt: one correction, no
    /// loop, and the error names the difference.
    @Test func aClockThatCannotBeMatchedFailsNamingTheDifference() async throws {
        let (moto, environment) = try await moto()
        let refused = files.sub("refused-always.log")
        let check = try Subprocess(
            "/usr/bin/env",
            ["python3", "-c", Self.clockCheck, String(moto.endpoint.dropFirst("http://".count)), "always", refused],
            timeout: .seconds(300))
        defer { kill(check.pid, SIGKILL) }
        var skewed = environment
        skewed["AWS_ENDPOINT_URL"] = "http://127.0.0.1:\(try await Subprocess.listeningPort(of: check.pid))"
        let file = randomFile("x.jpg", 1000, seed: 9)
        let result = try await hoist(
            ["send", "s3://photos/x.jpg", "-T", file.path, "--retries", "0", "--no-history", "--no-journal"],
            environment: skewed)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("RequestTimeTooSkewed")
                && result.stderr.contains("(the server's clock is 3600 s ahead of this machine's)"), "\(result.stderr)")
        let refusals = ((try? String(contentsOfFile: refused, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(refusals.count == 2, "the first, and the one signed by the learnt clock: \(refusals)")
    }

    /// `-T -`: a stream that ends within a part is one PutObject; a longer
    /// one goes in parts read one at a time (20 MiB ends on a part boundary).
    @Test(arguments: [0, 1000, 20 << 20, (12 << 20) + 3])
    func standardInputBecomesAnObject(_ size: Int) async throws {
        let (moto, environment) = try await moto()
        var generator = SeededGenerator(state: UInt64(size) + 1)
        let bytes = randomBytes(size, using: &generator)
        let result = try await run(
            "/usr/bin/time",
            [
                "-f", "maxrss_kib=%M", hoistBinary, "send", "s3://photos/stdin/backup.tar", "-T", "-", "--part-size",
                "5M", "--json", "-s", "--no-history",
            ], environment: hoistEnvironment(environment)
        ) { pipe in
            try? pipe.write(contentsOf: bytes)
        }
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        let line = try jsonObject(try #require(result.stdoutLines.first))
        #expect(line["name"] as? String == "standard input")
        #expect((line["bytes_sent"] as? NSNumber)?.intValue == size)
        let stored = try await moto.object("photos", "stdin/backup.tar")
        #expect(stored.size == size)
        #expect(stored.sha256 == sha256(bytes))
        let parts = (size + (5 << 20) - 1) / (5 << 20)
        #expect(stored.etag.hasSuffix(parts > 1 ? "-\(parts)\"" : "\""), "\(stored.etag)")
        #expect(moto.requests(containing: "partNumber=").count == (parts > 1 ? parts : 0))
        let rss = result.stderr.split(separator: "\n").first { $0.hasPrefix("maxrss_kib=") }.flatMap {
            Int($0.dropFirst("maxrss_kib=".count))
        }
        #expect(try #require(rss) < 100 * 1024, "one part at a time is held, not the stream")
    }

    /// A part of standard input that the connection lost goes again from
    /// memory: the stream is not read twice, and the object is whole.
    @Test func aLostPartOfStandardInputIsSentAgainFromMemory() async throws {
        let (moto, environment) = try await moto()
        let proxy = try await MotoProxy.start(before: moto.endpoint, cutting: "partNumber=2&")
        var generator = SeededGenerator(state: 77)
        let bytes = randomBytes((12 << 20) + 3, using: &generator)
        let result = try await hoist(
            [
                "send", "s3://photos/stdin/cut.bin", "-T", "-", "--part-size", "5M", "--endpoint", proxy.endpoint,
                "--retries", "3", "--json", "-s", "--no-history",
            ], environment: environment
        ) { pipe in
            try? pipe.write(contentsOf: bytes)
        }
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        let line = try jsonObject(try #require(result.stdoutLines.first))
        #expect((line["attempts"] as? NSNumber)?.intValue == 2)
        let stored = try await moto.object("photos", "stdin/cut.bin")
        #expect(stored.sha256 == sha256(bytes))
        #expect(stored.etag.hasSuffix("-3\""))
        // Part 1 was confirmed before the cut: it did not go again.
        #expect(moto.requests(containing: "partNumber=1&").count == 1)
        #expect(moto.requests(containing: "partNumber=2&").count == 1)
    }

    /// An upload that finally fails leaves nothing open on the server, and says so.
    @Test func aMultipartUploadThatFinallyFailsIsAborted() async throws {
        let (moto, environment) = try await moto()
        let proxy = try await MotoProxy.start(before: moto.endpoint, cutting: "partNumber=2&")
        let file = randomFile("cut.bin", (11 << 20) + 1, seed: 78)
        let result = try await hoist(
            [
                "send", "s3://photos/failed/cut.bin", "-T", file.path, "--part-size", "5M", "--endpoint",
                proxy.endpoint, "--retries", "0", "--no-history", "--no-journal",
            ], environment: environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("the multipart upload was aborted on the server, so none of its parts stays stored"),
            "\(result.stderr)")
        #expect(moto.requests(containing: "DELETE /photos/failed/cut.bin?uploadId=").count == 1, "\(moto.logTail())")
        #expect(try await moto.openUploads("photos") == 0)
    }

    @Test func badS3InputIsRefusedBeforeAnythingIsSent() async throws {
        let file = randomFile("y.jpg", 10, seed: 4)
        let other = randomFile("z.jpg", 10, seed: 5)
        let cases: [([String], String)] = [
            (["s3://Photos/x", "-T", file.path], "is not a bucket name"),
            (
                ["s3://photos/x.jpg", "-T", file.path, "-T", other.path],
                "end the URL with / to put them under a prefix"
            ),
            (["s3://photos/", "--each", "f=@\(file.path)", "-F", "a=b"], "give metadata as headers"),
            (["s3://photos/", "-T", file.path, "--part-size", "1M"], "is not a part size: give 5M to 5G"),
            (["s3://photos/", "-T", file.path, "--endpoint", "ftp://x"], "--endpoint"),
            (["s3://photos/", "-T", file.path, "--acl", "everyone"], "is not a canned ACL"),
            (["s3://photos/", "-T", file.path, "--storage-class", "cold"], "is not a storage class"),
            (["s3://photos/", "-T", file.path, "--checksum", "sha1"], "is not a checksum: use crc32"),
            (["s3://photos/in/", "-T", "-"], "give the object's key, s3://BUCKET/KEY"),
        ]
        for (arguments, message) in cases {
            let result = try await hoist(["send"] + arguments + ["--no-history", "--no-journal"])
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
