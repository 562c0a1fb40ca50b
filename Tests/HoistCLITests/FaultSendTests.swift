import Foundation
import TestSupport
import Testing

/// `hoist send` through a proxy that resets connections mid-request and
/// stalls others, in front of servers no one here wrote: SeaweedFS (S3 with
/// SigV4), resumable-upload (tus), and the receiver for plain forms and GCS. What
/// the server holds at the end must equal the source, byte for byte, and
/// no S3 multipart upload may be left open.
@Suite(.serialized) struct FaultSendTests {
    let files = TemporaryDirectory()

    /// `count` files of `size` bytes under `folder`, by name, with their SHA-256.
    func randomFiles(_ folder: String, _ count: Int, _ size: Int, seed: UInt64) -> [String: String] {
        _ = files.directory(folder)
        var shas: [String: String] = [:]
        for index in 0..<count {
            var generator = SeededGenerator(state: seed &+ UInt64(index))
            let bytes = randomBytes(size + index, using: &generator)
            let name = String(format: "%@-%02d.bin", folder, index)
            _ = files.file(folder + "/" + name, bytes)
            shas[name] = sha256(bytes)
        }
        return shas
    }

    /// The proxy's seeds: one per test by default (the whole suite runs in
    /// parallel on two cores); `HOIST_FAULT_SEEDS="1 2 3"` runs those instead.
    static func seeds(_ fallback: UInt64) -> [UInt64] {
        let given = (ProcessInfo.processInfo.environment["HOIST_FAULT_SEEDS"] ?? "").split(separator: " ")
            .compactMap { UInt64($0) }
        return given.isEmpty ? [fallback] : given
    }

    @Test(arguments: seeds(2026))
    func s3ObjectsArriveWholeThroughResetsAndNoUploadIsLeftOpen(seed: UInt64) async throws {
        let seaweed = try await SeaweedPeer.start()
        try await seaweed.reader.createBucket("chaos")
        let big = randomFiles("big", 3, 16 << 20, seed: seed)
        let small = randomFiles("small", 8, 64 << 10, seed: seed + 100)
        // Cuts fall anywhere in the first 12 MiB a connection carries: inside
        // parts, between kept-alive requests, and in the completions.
        let proxy = try await FaultProxy.start(
            before: seaweed.endpoint, seed: seed, cuts: 10, bytes: 1...(8 << 20), stallEvery: 7)
        let home = TemporaryDirectory()
        let result = try await hoist(
            [
                "send", "s3://chaos/in/", "-T", files.path + "/big/*.bin", "-T", files.path + "/small/*.bin",
                "--endpoint", proxy.endpoint, "--part-size", "5M", "--retries", "8", "--json", "-s",
                "--no-history", "--no-journal",
            ], environment: seaweed.environment(home: home.path))
        let counts = proxy.counts
        #expect(result.status == 0, "\(result.stderr)\n\(seaweed.logTail())")
        #expect(counts.cuts > 0, "the proxy cut nothing: the test proves nothing")
        let stored = try await seaweed.reader.objects("chaos", prefix: "in/")
        for (name, sha) in big.merging(small, uniquingKeysWith: { $1 }) {
            #expect(
                stored["in/" + name]?.sha256 == sha,
                "\(name) differs from its source: \(stored["in/" + name]?.size ?? -1) bytes\n\(result.stdout)\n\(seaweed.logTail(80))"
            )
        }
        #expect(try await seaweed.reader.openUploads("chaos") == 0)
    }

    @Test(arguments: seeds(7))
    func tusUploadsArriveWholeThroughResets(seed: UInt64) async throws {
        let peer = try await TusPeer.resumableUpload(["--enable-downloads"])
        let shas = randomFiles("tus", 4, 5 << 20, seed: seed)
        let proxy = try await FaultProxy.start(
            before: peer.creationURL, seed: seed, cuts: 8, bytes: 1...(6 << 20), stallEvery: 5)
        let result = try await hoist([
            "send", "--tus", proxy.endpoint + "/files", "-T", files.path + "/tus/*.bin", "--chunk-size", "2M",
            "--retries", "20", "--json", "-s", "--no-history", "--no-journal",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(proxy.counts.cuts > 0, "the proxy cut nothing: the test proves nothing")
        let stored = Set(peer.storedFiles().values.map { sha256($0) })
        #expect(stored.isSuperset(of: Set(shas.values)), "a tus upload differs from its source")
        let lines = try result.stdoutLines.map(jsonObject)
        #expect(lines.count == shas.count && lines.allSatisfy { $0["ok"] as? Bool == true })
    }

    /// GCS through the proxy in front of `hoist receive`, whose status query
    /// is faithful (fake-gcs-server's ends the session).
    @Test(arguments: seeds(12))
    func gcsObjectsArriveWholeThroughResets(seed: UInt64) async throws {
        let big = randomFiles("gcs", 6, 3 << 20, seed: seed)
        let small = randomFiles("gcs-small", 6, 100 << 10, seed: seed + 50)
        try await withReceiver { receiver, _ in
            let proxy = try await FaultProxy.start(
                before: receiver.baseURL, seed: seed, cuts: 12, bytes: 1...(3 << 20), stallEvery: 6)
            let result = try await hoist([
                "send", "gs://chaos/in/", "-T", files.path + "/gcs/*.bin", "-T", files.path + "/gcs-small/*.bin",
                "--endpoint", proxy.endpoint, "--chunk-size", "512K", "--retries", "20", "--json", "-s",
                "--no-history", "--no-journal",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(proxy.counts.cuts > 0, "the proxy cut nothing: the test proves nothing")
            for (name, sha) in big.merging(small, uniquingKeysWith: { $1 }) {
                let read = try await run(
                    "/bin/sh",
                    ["-c", "curl -sf '\(receiver.baseURL)/storage/v1/b/chaos/o/in%2F\(name)?alt=media' | sha256sum"])
                #expect(read.stdout.hasPrefix(sha), "\(name) differs from its source\n\(result.stdout)")
            }
            let lines = try result.stdoutLines.map(jsonObject)
            #expect(lines.count == 12 && lines.allSatisfy { $0["ok"] as? Bool == true })
        }
    }

    @Test(arguments: seeds(7))
    func formUploadsArriveWholeThroughResets(seed: UInt64) async throws {
        let shas = randomFiles("form", 20, 700 << 10, seed: seed)
        try await withReceiver { receiver, saved in
            let proxy = try await FaultProxy.start(
                before: receiver.baseURL, seed: seed, cuts: 10, bytes: 1...(4 << 20), stallEvery: 9)
            let result = try await hoist([
                "send", proxy.endpoint + "/upload", "--each", "file=@\(files.path)/form/*.bin", "--retries", "20",
                "--json", "-s", "--no-history", "--no-journal",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(proxy.counts.cuts > 0, "the proxy cut nothing: the test proves nothing")
            // A cut body is never kept by the receiver: what it saved is whole.
            // (A reset after the last byte can make a second copy: plain
            // multipart cannot ask the server what it holds.)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: saved.path)) ?? []
            #expect(Set(JournalTests.savedHashes(saved)) == Set(shas.values), "saved: \(names.sorted())")
        }
    }

    /// Waiting for the answer once the whole body is sent is not idle
    /// time: a server that answers after 2.5 s gets the photo once, with a
    /// 1 s idle timeout. When the answer timeout itself runs out, a POST is
    /// not sent again (the server may hold it) unless `--retry-after-sent`
    /// asks; then `--json` says the server may hold it twice.
    @Test func aSlowAnswerIsWaitedForAndAPostIsNotSentTwice() async throws {
        let file = files.file("photo.jpg", [UInt8](repeating: 7, count: 300_000))
        try await withReceiver { receiver, saved in
            func send(_ options: [String]) async throws -> (status: Int32, line: [String: Any]) {
                let result = try await hoist(
                    ["send", receiver.baseURL + "/verify?delay=2500", "-F", "image=@\(file)", "--json", "-s"]
                        + ["--no-history", "--no-journal"] + options)
                return (result.status, try jsonObject(try #require(result.stdoutLines.first)))
            }
            let slow = try await send(["--idle-timeout", "1", "--retries", "3"])
            #expect(slow.status == 0 && slow.line["attempts"] as? Int == 1, "\(slow.line)")
            #expect(slow.line["possible_duplicate"] as? Bool == false)
            #expect(JournalTests.savedHashes(saved).count == 1)

            let timedOut = try await send(["--answer-timeout", "1", "--retries", "3"])
            #expect(timedOut.status == 1 && timedOut.line["attempts"] as? Int == 1, "\(timedOut.line)")
            #expect((timedOut.line["error"] as? String)?.contains("answer timeout") == true)
            #expect(timedOut.line["possible_duplicate"] as? Bool == false)
            try await JournalTests.waitUntil("the timed-out body saved once", timeout: .seconds(10)) {
                JournalTests.savedHashes(saved).count == 2
            }

            let again = try await send(["--answer-timeout", "1", "--retries", "1", "--retry-after-sent"])
            #expect(again.status == 1 && again.line["attempts"] as? Int == 2, "\(again.line)")
            #expect(again.line["possible_duplicate"] as? Bool == true, "\(again.line)")
            try await JournalTests.waitUntil("both bodies saved", timeout: .seconds(10)) {
                JournalTests.savedHashes(saved).count == 4
            }
        }
        // Refused connections sent nothing.
        let refused = try await hoist([
            "send", "http://127.0.0.1:9/up", "-F", "image=@\(file)", "--retries", "1", "--json", "-s",
            "--no-history", "--no-journal",
        ])
        #expect(try jsonObject(try #require(refused.stdoutLines.first))["possible_duplicate"] as? Bool == false)
    }

    /// SeaweedFS checks SigV4 on keys moto refuses when it checks at all
    /// (CJK, spaces, `+`): PutObject and a multipart upload, read back by boto3.
    @Test func unicodeKeysAreSignedAsARealStoreChecksThem() async throws {
        let seaweed = try await SeaweedPeer.start()
        try await seaweed.reader.createBucket("photos")
        let folder = files.directory("身份证 2026+")
        var generator = SeededGenerator(state: 42)
        let small = randomBytes(300_000, using: &generator)
        let large = randomBytes(6 << 20, using: &generator)
        _ = files.file("身份证 2026+/正面 a+b.jpg", small)
        _ = files.file("身份证 2026+/大 文件~.bin", large)
        let home = TemporaryDirectory()
        let result = try await hoist(
            [
                "send", "s3://photos/证件/", "-T", folder + "/*", "--part-size", "5M", "--json", "-s", "--no-history",
                "--no-journal",
            ], environment: seaweed.environment(home: home.path))
        #expect(result.status == 0, "\(result.stderr)\n\(seaweed.logTail())")
        let stored = try await seaweed.reader.objects("photos")
        #expect(stored["证件/正面 a+b.jpg"]?.sha256 == sha256(small), "\(stored.keys.sorted())")
        #expect(stored["证件/大 文件~.bin"]?.sha256 == sha256(large), "\(stored.keys.sorted())")
        // A wrong secret is refused by the store, and said so.
        var wrong = seaweed.environment(home: home.path)
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let refused = try await hoist(
            ["send", "s3://photos/证件/", "-T", folder + "/*", "--retries", "0", "--no-history", "--no-journal"],
            environment: wrong)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("SignatureDoesNotMatch") || refused.stderr.contains("403"), "\(refused.stderr)")
    }
}
