import FormData
import Foundation
import TestSupport
import Testing

@testable import UploadEngine

/// The S3 driver against moto_server, an S3 API no one here wrote: what it
/// stored is read back with boto3 (size, SHA-256, ETag).
@Suite(.serialized) struct S3MotoTests {
    let files = TemporaryDirectory()

    func randomFile(_ name: String, _ size: Int) -> (path: String, sha: String) {
        var generator = SeededGenerator(state: UInt64(size))
        let bytes = randomBytes(size, using: &generator)
        return (files.file(name, bytes), sha256(bytes))
    }

    func request(
        _ moto: MotoPeer, _ path: String, key: String, partSize: Int64? = nil, through endpoint: String? = nil
    ) throws -> UploadRequest {
        let settings = S3Settings(
            location: S3Location(bucket: "photos", key: key), endpoint: S3Endpoint(url: endpoint ?? moto.endpoint),
            partSize: partSize)
        return UploadRequest(
            url: try settings.endpoint.line("PUT", settings.location).url, method: .put,
            body: .rawFile(path: path, contentType: "image/jpeg"), retry: Self.patientRetry, label: baseName(of: path),
            transfer: .s3(settings))
    }

    /// moto is one Python process: with the whole suite running beside it,
    /// it once closed a connection four times within a second.
    static let patientRetry = RetryPolicy(maxRetries: 5, baseDelay: .milliseconds(200), maxDelay: .seconds(2))

    func engine(
        _ events: EventLog, key: String = "testing", secret: String = "testing", concurrency: Int = 2
    ) -> UploadEngine {
        UploadEngine(
            configuration: .init(
                concurrency: concurrency, environment: ["AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret]),
            monitors: [events])
    }

    @Test func aSmallFileIsOnePutObjectWithItsBytesAndType() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let file = randomFile("身份证 正面.jpg", 300_000)
        let events = EventLog()
        let engine = engine(events)
        let id = try engine.add(try request(moto, file.path, key: "cards/身份证 正面.jpg"))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        #expect(done.state == .succeeded, "\(done.state)\n\(moto.logTail())")
        #expect(done.progress.bytesSent == 300_000)
        let stored = try await moto.object("photos", "cards/身份证 正面.jpg")
        #expect(stored.size == 300_000)
        #expect(stored.sha256 == file.sha)
        #expect(!stored.etag.contains("-"))  // one PutObject, not a multipart upload
        // The x-amz-checksum-crc32 sent is zlib's CRC32 of the bytes.
        let crc = try await moto.crc32("photos", "cards/身份证 正面.jpg")
        #expect(crc.stored == crc.computed)
        #expect(moto.requests(containing: "PUT /photos/cards/").count == 1)
    }

    @Test func md5ChecksumsStillGoAsContentMD5() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let small = randomFile("small.jpg", 300_000)
        let large = randomFile("large.bin", 12 << 20)
        let engine = engine(EventLog())
        var ids: [TaskID] = []
        for (file, key) in [(small, "small.jpg"), (large, "large.bin")] {
            var request = try request(moto, file.path, key: key, partSize: 5 << 20)
            if var settings = request.transfer.s3 {
                settings.checksum = .md5
                request.transfer = .s3(settings)
            }
            ids.append(try engine.add(request))
        }
        for id in ids {
            let done = try #require(await engine.result(of: id))
            #expect(done.state == .succeeded, "\(done.state)\n\(moto.logTail())")
        }
        await engine.shutdown()
        #expect(try await moto.object("photos", "small.jpg").sha256 == small.sha)
        let stored = try await moto.object("photos", "large.bin")
        #expect(stored.sha256 == large.sha)
        #expect(stored.etag.hasSuffix("-3\""))
        #expect(try await moto.crc32("photos", "small.jpg").stored == nil, "no CRC32 was sent")
    }

    @Test func aLargeFileGoesInPartsAndEachPartIsACheckpoint() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let file = randomFile("big.bin", 23 << 20)
        let events = EventLog()
        let engine = engine(events)
        let id = try engine.add(try request(moto, file.path, key: "backups/big.bin", partSize: 5 << 20))
        let done = try #require(await engine.result(of: id))
        await engine.shutdown()
        #expect(done.state == .succeeded, "\(done.state)\n\(moto.logTail())")
        let stored = try await moto.object("photos", "backups/big.bin")
        #expect(stored.size == 23 << 20)
        #expect(stored.sha256 == file.sha)
        #expect(stored.etag.hasSuffix("-5\""))
        // A checkpoint per confirmed part, each holding more.
        let offsets = events.all().compactMap { event -> Int64? in
            guard case .checkpoint(let task) = event, let s3 = task.checkpoint?.s3 else { return nil }
            return s3.offset
        }
        #expect(offsets.last == 23 << 20)
        #expect(offsets == offsets.sorted())
        // Each part went with zlib's CRC32 of its bytes, kept for CompleteMultipartUpload.
        let parts =
            events.all().compactMap { event -> [S3Part]? in
                guard case .checkpoint(let task) = event, let s3 = task.checkpoint?.s3 else { return nil }
                return s3.parts
            }.last ?? []
        let expected = try await moto.python(
            """
            import base64, zlib
            data = open(\(String(reflecting: file.path)), "rb").read()
            print(json.dumps([base64.b64encode(zlib.crc32(data[i:i + (5 << 20)]).to_bytes(4, "big")).decode()
                              for i in range(0, len(data), 5 << 20)]))
            """)
        #expect(
            try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [String] == parts.compactMap(\.checksum))
        #expect(parts.count == 5)
        #expect(try await moto.openUploads("photos") == 0)
    }

    /// `--concurrency` bounds the requests on the wire, parts included: a
    /// multipart upload widens into the slots no other task wants.
    @Test func partsShareTheConcurrencyLimitWithTheOtherTasks() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let proxy = try await MotoProxy.start(before: moto.endpoint)
        let big = [randomFile("a.bin", 16 << 20), randomFile("b.bin", (16 << 20) + 1)]
        let small = [randomFile("c.jpg", 300_000), randomFile("d.jpg", 300_001)]
        let shared = engine(EventLog(), concurrency: 3)
        var ids: [TaskID] = []
        for file in big + small {
            ids.append(
                try shared.add(
                    try request(
                        moto, file.path, key: baseName(of: file.path), partSize: 5 << 20, through: proxy.endpoint)))
        }
        for id in ids {
            let done = try #require(await shared.result(of: id))
            #expect(done.state == .succeeded, "\(done.state)\n\(moto.logTail())")
        }
        await shared.shutdown()
        for file in big + small {
            #expect(try await moto.object("photos", baseName(of: file.path)).sha256 == file.sha)
        }
        #expect(proxy.mostAtOnce == 3, "4 tasks of up to 4 parts each, 3 requests at once")

        // Alone, one upload takes the slots for its parts.
        let counted = try await MotoProxy.start(before: moto.endpoint)
        let file = randomFile("alone.bin", 30 << 20)
        let alone = engine(EventLog(), concurrency: 4)
        let id = try alone.add(
            try request(moto, file.path, key: "alone.bin", partSize: 5 << 20, through: counted.endpoint))
        let done = try #require(await alone.result(of: id))
        await alone.shutdown()
        #expect(done.state == .succeeded, "\(done.state)")
        // (All 4 at once only when the parts' MD5s, hashed at low priority, keep up.)
        #expect((2...4).contains(counted.mostAtOnce), "\(counted.mostAtOnce) parts at once")
    }

    @Test func anotherEngineGoesOnFromTheCheckpointAndSendsOnlyTheMissingParts() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let file = randomFile("resume.bin", 30 << 20)
        let first = EventLog()
        let engine1 = engine(first)
        let request = try request(moto, file.path, key: "resume.bin", partSize: 5 << 20)
        let id1 = try engine1.add(request)
        var held: S3Checkpoint?
        for _ in 0..<600 {
            let last = first.all().compactMap { event -> S3Checkpoint? in
                guard case .checkpoint(let task) = event, task.id == id1, let s3 = task.checkpoint?.s3 else {
                    return nil
                }
                return s3
            }.last
            if let last, last.parts.count >= 2 {
                held = last
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        await engine1.shutdown()
        let saved = try #require(held)
        let partRequest = "\"PUT /photos/resume.bin?partNumber="
        let before = moto.requests(containing: partRequest).count
        let second = EventLog()
        let engine2 = engine(second)
        let id2 = try engine2.restore(request, checkpoint: .s3(saved))
        engine2.resumeInterrupted()
        let done = try #require(await engine2.result(of: id2))
        await engine2.shutdown()
        #expect(done.state == .succeeded, "\(done.state)\n\(moto.logTail())")
        #expect((done.resumedFrom ?? 0) >= saved.offset)
        let stored = try await moto.object("photos", "resume.bin")
        #expect(stored.sha256 == file.sha)
        #expect(stored.etag.hasSuffix("-6\""))
        // After the restart no part the checkpoint held went up again (a part
        // the first engine had on the wire may be logged late, or sent
        // again: the server had not confirmed it).
        let sentAfter = Set(
            moto.requests(containing: partRequest).dropFirst(before).compactMap { line -> Int? in
                guard let range = line.range(of: "partNumber=") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            })
        let heldParts = Set(saved.parts.map(\.number))
        #expect(sentAfter.isDisjoint(with: heldParts), "\(sentAfter) sent again after the restart; held \(heldParts)")
        // (A part may have reached the server after the checkpoint was read:
        // ListParts finds it, so it is neither held here nor sent again.)
        #expect(sentAfter.count <= 6 - heldParts.count)
        #expect(moto.requests(containing: "GET /photos/resume.bin?uploadId=").count == 1)  // one ListParts
    }

    @Test func aCancelAbortsTheMultipartUploadSoNothingIsLeftOnTheServer() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let file = randomFile("cancel.bin", 60 << 20)
        let events = EventLog()
        let engine = engine(events)
        var request = try request(moto, file.path, key: "cancel.bin", partSize: 5 << 20)
        if var settings = request.transfer.s3 {
            settings.partConcurrency = 1
            request.transfer = .s3(settings)
        }
        let id = try engine.add(request)
        for _ in 0..<600 {
            if events.all().contains(where: { if case .checkpoint = $0 { return true } else { return false } }) {
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        engine.cancel(id)
        let done = try #require(await engine.result(of: id))
        #expect(done.state == .cancelled(reason: "cancelled by the user"), "\(done.state)")
        // What the UI shows last: no upload held on the server any more (issue 37 #11).
        let last = try #require(events.snapshots(of: id).last)
        #expect(last.checkpoint == nil)
        #expect(last.note == "what the server held of it was freed")
        // moto may hold the abort until it gives up on the part the cancel cut off.
        var open = -1
        for _ in 0..<300 {
            open = try await moto.openUploads("photos")
            if open == 0 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        await engine.shutdown()
        #expect(open == 0)
        #expect(moto.requests(containing: "POST /photos/cancel.bin?uploads").count == 1)
        #expect(moto.requests(containing: "DELETE /photos/cancel.bin?uploadId=").count == 1)
    }

    @Test func aWrongSecretIsSignatureDoesNotMatchAndARightOneUploads() async throws {
        let moto = try await MotoPeer.start()
        try await moto.createBucket("photos")
        let user = try await moto.requireSignatures()
        let file = randomFile("a.jpg", 10_000)

        let wrong = engine(EventLog(), key: user.key, secret: user.secret + "x")
        let failed = try #require(await wrong.result(of: try wrong.add(try request(moto, file.path, key: "a.jpg"))))
        await wrong.shutdown()
        guard case .failed = failed.state else {
            Issue.record("\(failed.state)")
            return
        }
        #expect("\(failed.state)".contains("SignatureDoesNotMatch"), "\(failed.state)")

        let right = engine(EventLog(), key: user.key, secret: user.secret)
        let done = try #require(await right.result(of: try right.add(try request(moto, file.path, key: "a.jpg"))))
        await right.shutdown()
        #expect(done.state == .succeeded, "\(done.state)\n\(moto.logTail())")
    }

    @Test func noCredentialsAndAMissingBucketAreNamed() async throws {
        let moto = try await MotoPeer.start()
        let file = randomFile("n.jpg", 1000)
        let bare = UploadEngine(configuration: .init(concurrency: 1, environment: ["HOME": files.path]), monitors: [])
        let none = try #require(await bare.result(of: try bare.add(try request(moto, file.path, key: "n.jpg"))))
        await bare.shutdown()
        #expect("\(none.state)".contains("no AWS credentials"), "\(none.state)")

        let engine = engine(EventLog())
        let missing = try #require(await engine.result(of: try engine.add(try request(moto, file.path, key: "n.jpg"))))
        await engine.shutdown()
        #expect("\(missing.state)".contains("NoSuchBucket"), "\(missing.state)")
    }
}
