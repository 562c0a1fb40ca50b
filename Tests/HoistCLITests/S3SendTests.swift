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
