import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// Real uploads through AsyncHTTPClient to the real Receiver on loopback.
@Suite(.serialized) struct EngineUploadTests {
    /// Asked to, the engine tells the size and SHA-256 of each file of a body
    /// it read whole, as the server received them, in the `.finished` event
    /// only; not for a body it streamed (over 256 KiB) or one in base64.
    @Test func aFinishedEventTellsTheFilesItSentWhenAsked() async throws {
        try await Harness.run(digestsSentFiles: true) { h in
            let front = randomFile(h, "身份证 正面.jpg", size: 20_000, seed: 1)
            let back = randomFile(h, "back.jpg", size: 1, seed: 2)
            let big = randomFile(h, "big.bin", size: 300_000, seed: 3)
            let small = try h.engine.add(
                UploadRequest(
                    url: h.url,
                    body: .multipart(
                        MultipartForm(parts: [
                            .file("front", path: front.path), .text("id", "7"), .file("back", path: back.path),
                        ]))))
            let streamed = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("big", path: big.path)]))))
            let base64 = try h.engine.add(
                UploadRequest(url: h.url, body: .base64JSON(Base64JSONBody(fileField: "image", path: back.path))))
            // Out of the page cache, the body is read on the thread pool instead: told all the same.
            let cold = randomFile(h, "cold.bin", size: 5_000, seed: 7)
            let descriptor = open(cold.path, O_RDONLY)
            #expect(fsync(descriptor) == 0 && posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
            close(descriptor)
            let uncached = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("cold", path: cold.path)]))))
            for id in [small, streamed, base64, uncached] { #expect(try await h.finish(id).state == .succeeded) }
            let upload = try received(try await h.finish(small))
            let finished = h.events.all().compactMap { event -> TaskSnapshot? in
                if case .finished(let task) = event { task } else { nil }
            }
            let told = try #require(finished.first { $0.id == small }?.sentFiles)
            #expect(
                told == [
                    SentFile(size: 20_000, sha256: sha256(front.bytes)), SentFile(size: 1, sha256: sha256(back.bytes)),
                ])
            #expect(told.map(\.sha256) == upload.files.map(\.sha256))
            #expect(finished.first { $0.id == streamed }?.sentFiles == nil)
            #expect(finished.first { $0.id == base64 }?.sentFiles == nil)
            #expect(
                finished.first { $0.id == uncached }?.sentFiles == [SentFile(size: 5_000, sha256: sha256(cold.bytes))])
            // Not kept: the task as the engine lists it afterwards has none.
            #expect(try await h.finish(small).sentFiles == nil)
        }
        try await Harness.run { h in
            let file = randomFile(h, "a.bin", size: 100, seed: 4)
            let id = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("a", path: file.path)]))))
            _ = try await h.finish(id)
            let finished = h.events.all().compactMap { event -> TaskSnapshot? in
                if case .finished(let task) = event { task } else { nil }
            }
            #expect(finished.count == 1 && finished[0].sentFiles == nil, "not asked, not told")
        }
    }

    /// The `.added` event carries each file as `add` checked it, in the
    /// body's file order, for the journal; later events do not.
    @Test func anAddedEventCarriesTheFilesAsChecked() async throws {
        try await Harness.run { h in
            let front = randomFile(h, "身份证 正面.jpg", size: 2_000, seed: 5)
            let back = randomFile(h, "back.jpg", size: 10, seed: 6)
            let request = UploadRequest(
                url: h.url,
                body: .multipart(
                    MultipartForm(parts: [
                        .file("front", path: front.path), .text("id", "7"), .file("back", path: back.path),
                    ])))
            let id = try h.engine.add(request)
            _ = try await h.finish(id)
            let events = h.events.all().filter { $0.snapshot?.id == id }
            guard case .added(let added)? = events.first else {
                Issue.record("no .added first")
                return
            }
            #expect(added.fileSnapshots == [FileSnapshot(path: front.path)!, FileSnapshot(path: back.path)!])
            #expect(request.body.filePaths == [front.path, back.path])
            #expect(events.dropFirst().allSatisfy { $0.snapshot?.fileSnapshots == nil })
        }
    }

    @Test func multipartUploadArrivesIntact() async throws {
        try await Harness.run { h in
            let front = randomFile(h, "身份证 正面.jpg", size: 300_000, seed: 1)
            let notes = randomFile(h, "notes \"v2\".txt", size: 1_000, seed: 2)
            var form = MultipartForm()
            form.append(.text("user_id", "42"))
            form.append(.file("front", path: front.path))
            form.append(.file("notes", path: notes.path))
            let id = try h.engine.add(UploadRequest(url: h.url, body: .multipart(form)))
            let done = try await h.finish(id)
            #expect(done.state == .succeeded)
            let upload = try received(done)
            #expect(upload.fields == [.init(name: "user_id", value: "42")])
            #expect(upload.files.map(\.filename) == ["身份证 正面.jpg", "notes \"v2\".txt"])
            #expect(upload.files.map(\.sha256) == [sha256(front.bytes), sha256(notes.bytes)])
            #expect(upload.files.map(\.size) == [300_000, 1_000])
            #expect(upload.files.map(\.contentType) == ["image/jpeg", "text/plain"])
            #expect(done.progress.bytesSent == done.progress.totalBytes)
            #expect(done.progress.totalBytes == (try form.makeBody().contentLength))
            #expect(upload.bodyBytes == done.progress.totalBytes)
            #expect(!done.answeredEarly)
            #expect(done.attempts == 1)
            // Events: added first, finished last, progress monotonic.
            let events = h.events.all().filter { $0.snapshot?.id == id }
            if case .added = events.first {} else { Issue.record("first event is not .added") }
            if case .finished(let last) = events.last {
                #expect(last.state == .succeeded)
            } else {
                Issue.record("last event is not .finished")
            }
            expectMonotonicProgress(h.events.snapshots(of: id))
        }
    }

    /// One request of many small files and a large one among them: the
    /// small ones go with the bytes around them, read a megabyte at a time,
    /// the large one by sendfile or mapped slices. Every part arrives
    /// whole and in order.
    @Test func oneRequestOfNineHundredSmallFilesAndALargeOneArrivesIntact() async throws {
        try await Harness.run { h in
            var form = MultipartForm()
            var names: [String] = []
            var hashes: [String] = []
            var sizes: [Int64] = []
            func add(_ file: (name: String, path: String, bytes: [UInt8])) {
                form.append(.file("file", path: file.path))
                names.append(file.name)
                hashes.append(sha256(file.bytes))
                sizes.append(Int64(file.bytes.count))
            }
            for index in 0..<900 {  // the receiver takes up to 1,000 parts
                if index == 450 { add(randomFile(h, "large.bin", size: 3 << 20, seed: 9_999)) }
                add(randomFile(h, "s\(index).bin", size: 500 + index % 2_000, seed: UInt64(index)))
            }
            let id = try h.engine.add(UploadRequest(url: h.url, body: .multipart(form)))
            let done = try await h.finish(id)
            #expect(done.state == .succeeded, "\(done.state)")
            let upload = try received(done)
            #expect(upload.files.map(\.filename) == names)
            #expect(upload.files.map(\.sha256) == hashes)
            #expect(upload.files.map(\.size) == sizes)
            #expect(upload.bodyBytes == done.progress.totalBytes)
            #expect(done.progress.bytesSent == done.progress.totalBytes)
        }
    }

    /// Past the first `preparedAhead` queued tasks, a task keeps only its
    /// body's length: it shows its size while it waits, and its body is
    /// made when it starts, from the file as it is then.
    @Test func tasksQueuedPastThePreparedOnesShowTheirSizeAndSendTheFileAsItIsNow() async throws {
        try await Harness.run { h in
            let last = randomFile(h, "last.bin", size: 10, seed: 1)
            h.engine.pause()
            let fields = (0..<UploadEngine.preparedAhead).map {
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.text("n", "\($0)")])))
            }
            let form = MultipartForm(parts: [.file("f", path: last.path)])
            let ids = try h.engine.add(batch: fields + [UploadRequest(url: h.url, body: .multipart(form))])
            let queued = try #require(h.engine.snapshot(ids.last!))
            #expect(queued.progress.totalBytes == (try form.makeBody().contentLength))
            let rewritten = randomFile(h, "last.bin", size: 20_000, seed: 2)
            h.engine.resume()
            let done = try await h.finish(ids.last!)
            #expect(done.state == .succeeded)
            #expect(try received(done).files.first?.sha256 == sha256(rewritten.bytes))
            #expect(done.progress.bytesSent == done.progress.totalBytes)
            #expect(done.progress.totalBytes == (try form.makeBody().contentLength).map { $0 })
        }
    }

    /// `hoist send` keeps no finished task: its monitors had the result.
    @Test func finishedTasksGoWhenTheEngineKeepsNone() async throws {
        try await Harness.run(keepsFinishedTasks: false) { h in
            h.engine.pause()
            let ids = try h.engine.add(
                batch: (0..<3).map {
                    UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.text("n", "\($0)")])))
                })
            let refused = try h.engine.add(
                UploadRequest(url: "http://127.0.0.1:9/upload", body: .bytes([1], contentType: "a/b"), retry: .none))
            h.engine.resume()
            await h.engine.waitUntilIdle()
            await h.engine.settled()
            #expect(h.engine.snapshots().isEmpty)
            #expect(h.engine.tally() == UploadEngine.Tally(unfinished: 0, succeeded: 3, total: 4))
            let finished = h.events.all().compactMap { event -> TaskSnapshot? in
                if case .finished(let task) = event { task } else { nil }
            }
            #expect(Set(finished.map(\.id)) == Set(ids + [refused]))
            #expect(finished.filter { $0.response?.status == 200 }.count == 3)
            #expect(await h.engine.result(of: ids[0]) == nil, "gone, and not waited for forever")
        }
    }

    /// The body `add` encoded is not sent for a file that changed while the
    /// task waited: it is encoded again, with the file as it is now.
    @Test func aFileRewrittenWhileQueuedIsSentAsItIsNow() async throws {
        try await Harness.run { h in
            _ = randomFile(h, "photo.jpg", size: 10, seed: 1)
            h.engine.pause()
            let path = h.files.path + "/photo.jpg"
            let id = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: path)]))))
            let rewritten = randomFile(h, "photo.jpg", size: 20_000, seed: 2)
            #expect(rewritten.path == path)
            h.engine.resume()
            let done = try await h.finish(id)
            #expect(done.state == .succeeded)
            #expect(done.attempts == 1)
            #expect(try received(done).files.first?.sha256 == sha256(rewritten.bytes))
            #expect(done.progress.totalBytes == (try received(done).bodyBytes))
            #expect(done.progress.bytesSent == done.progress.totalBytes)
        }
    }

    /// A monitor is handed only the events it wants; the others still get all.
    @Test func aMonitorGetsOnlyTheEventsItWants() async throws {
        try await Harness.run { h in
            let all = EventLog()
            let finishedOnly = FinishedOnlyLog()
            let engine = UploadEngine(
                configuration: .init(concurrency: 2, environment: [:]), monitors: [all, finishedOnly])
            var ids: [TaskID] = []
            for index in 0..<3 {
                let file = randomFile(h, "f\(index).bin", size: 1_000, seed: UInt64(index))
                // Slow answers, so that every kind of event is raised.
                ids.append(
                    try engine.add(
                        UploadRequest(
                            url: h.url + "?delay=150",
                            body: .multipart(MultipartForm(parts: [.file("f", path: file.path)])))))
            }
            await engine.waitUntilIdle()
            await engine.shutdown()
            let finished = finishedOnly.all().compactMap { if case .finished(let s) = $0 { s.id } else { nil } }
            #expect(finishedOnly.all().count == 3)
            #expect(Set(finished) == Set(ids))
            let kinds = Set(
                all.all().map { event -> String in
                    switch event {
                    case .added: "added"
                    case .stateChanged: "stateChanged"
                    case .progress: "progress"
                    case .checkpoint: "checkpoint"
                    case .finished: "finished"
                    case .queueChanged: "queueChanged"
                    }
                })
            #expect(kinds.isSuperset(of: ["added", "stateChanged", "progress", "finished"]))
        }
    }

    /// A sent body whose answer is slow shows as awaiting the response, with
    /// every byte counted. A quick answer reports the sent body with the
    /// outcome instead (one hop to the engine, not two): all bytes counted too.
    @Test func aSlowAnswerShowsAsAwaitingTheResponse() async throws {
        try await Harness.run { h in
            let file = randomFile(h, "身份证 正面.jpg", size: 20_000, seed: 5)
            let form = MultipartForm(parts: [.file("front", path: file.path)])
            let slow = try await h.finish(
                try h.engine.add(UploadRequest(url: h.url + "?delay=400", body: .multipart(form))))
            let quick = try await h.finish(try h.engine.add(UploadRequest(url: h.url, body: .multipart(form))))
            for done in [slow, quick] {
                #expect(done.state == .succeeded)
                #expect(done.progress.bytesSent == done.progress.totalBytes)
                #expect(done.progress.bytesSent == (try received(done).bodyBytes))
            }
            let waiting = h.events.snapshots(of: slow.id).filter { $0.state == .awaitingResponse }
            #expect(!waiting.isEmpty, "the slow task never showed as awaiting the response")
            #expect(waiting.allSatisfy { $0.progress.bytesSent == $0.progress.totalBytes })
        }
    }

    @Test func threadPoolReadsAsOverTLSGiveTheSameBytes() async throws {
        try await Harness.run(fileSending: .threadPool) { h in
            let big = randomFile(h, "big.bin", size: 5_000_001, seed: 8)
            let form = MultipartForm(parts: [.text("a", "1"), .file("big", path: big.path), .text("z", "2")])
            let done = try await h.finish(try h.engine.add(UploadRequest(url: h.url, body: .multipart(form))))
            #expect(done.state == .succeeded)
            #expect(try received(done).files.first?.sha256 == sha256(big.bytes))
            #expect(try received(done).fields.map(\.value) == ["1", "2"])
            expectMonotonicProgress(h.events.snapshots(of: done.id))
        }
    }

    /// A small body is read where the task starts only when its files are
    /// in the page cache; a file that would need the disk goes to the thread
    /// pool instead, and both give the same bytes.
    @Test(.enabled(if: pageCacheTestParent != nil, evictionNeedsADisk))
    func smallBodiesAreReadInPlaceOnlyFromThePageCache() async throws {
        try await Harness.run(filesIn: pageCacheTestParent!) { h in
            let photo = randomFile(h, "身份证 正面.jpg", size: 100_000, seed: 12)
            let form = MultipartForm(parts: [.text("id", "7"), .file("front", path: photo.path)])
            let body = try form.makeBody()
            let cached = try #require(BodyStreamer.readWholeIfCached(body))
            #expect(Array(buffer: cached) == Array(buffer: try BodyStreamer.readWhole(body)))

            // DONTNEED is advice: on a busy machine a page can stay for a moment.
            var evicted = false
            for _ in 0..<20 where !evicted {
                let fd = open(photo.path, O_RDONLY)
                fsync(fd)
                #expect(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
                close(fd)
                evicted = BodyStreamer.readWholeIfCached(body) == nil
                if !evicted { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(evicted, "not in the page cache: left to the thread pool")
            let done = try await h.finish(try h.engine.add(UploadRequest(url: h.url, body: .multipart(form))))
            #expect(try received(done).files.first?.sha256 == sha256(photo.bytes))
            #expect(try received(done).fields.first?.value == "7")
        }
    }

    /// To a server on this machine a file goes out as mapped slices. However
    /// slowly the server reads, no more than `SlicePump.slicesInFlight` of
    /// them are mapped at once (NIO's write futures alone let a whole file
    /// be mapped ahead). A file not in the page cache is mapped off the
    /// event loop, and arrives whole.
    @Test(.enabled(if: pageCacheTestParent != nil, evictionNeedsADisk))
    func mappedSlicesStayFewAndAFileOnlyOnDiskArrivesWhole() async throws {
        let slowReader: (inout ReceiverConfiguration) -> Void = { $0.readBytesPerSecond = 10_000_000 }
        try await Harness.run(configure: slowReader, filesIn: pageCacheTestParent!) { h in
            let file = randomFile(h, "大 文件.bin", size: 12_000_001, seed: 21)
            let fd = open(file.path, O_RDONLY)
            fsync(fd)
            #expect(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
            let lease = try #require(LeasedFile.take(fd))
            #expect(!lease.isCached(offset: 0, length: 12_000_001), "evicted: its slices are mapped on the thread pool")
            #expect(!lease.isCached(offset: 4096, length: 1))
            lease.end()
            close(fd)
            let id = try h.engine.add(
                UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: file.path)]))))
            var most = 0
            while h.engine.snapshot(id)?.state.isFinished == false {
                most = max(most, mappings(of: file.path))
                try await Task.sleep(for: .milliseconds(3))
            }
            let done = try await h.finish(id)
            #expect(done.state == .succeeded)
            #expect(try received(done).files.first?.sha256 == sha256(file.bytes))
            #expect(most >= 1, "its slices were mapped")
            #expect(most <= SlicePump.slicesInFlight, "\(most) slices mapped at once")
            // (Whether every page is still cached afterwards is the kernel's
            // choice: a busy CI run once found one evicted.)
        }
    }

    @Test func progressEventsAreThrottled() async throws {
        try await Harness.run(configure: { $0.readBytesPerSecond = 20_000_000 }) { h in
            let big = randomFile(h, "big.bin", size: 20_000_000, seed: 4)
            let done = try await h.finish(
                try h.engine.add(
                    UploadRequest(url: h.url, body: .multipart(MultipartForm(parts: [.file("f", path: big.path)])))))
            #expect(done.state == .succeeded)
            let progressEvents = h.events.all().filter {
                if case .progress(let s) = $0 { s.id == done.id } else { false }
            }
            let seconds = ProgressMeter.seconds(done.finishedAt! - done.startedAt!)
            // About 20 a second at most, plus the last; an event per slice would give 10.
            #expect(progressEvents.count >= 2)
            #expect(Double(progressEvents.count) <= seconds * 20 + 3, "\(progressEvents.count) events in \(seconds) s")
        }
    }

    @Test func tlsToAPlaintextServerFailsClearly() async throws {
        try await Harness.run { h in
            let url = h.url.replacingOccurrences(of: "http://", with: "https://")
            let done = try await h.finish(
                try h.engine.add(UploadRequest(url: url, body: .json(Array("{}".utf8)), retry: .none)))
            guard case .failed(let failure) = done.state else {
                Issue.record("expected failure, got \(done.state)")
                return
            }
            switch failure {
            case .tls, .connectionLost: break
            default: Issue.record("expected a TLS failure, got \(failure)")
            }
            #expect(done.attempts == 1)
        }
    }

    @Test func hundredFilesEightAtATime() async throws {
        try await Harness.run(concurrency: 8) { h in
            var ids: [TaskID: (name: String, sha: String)] = [:]
            for index in 0..<100 {
                let file = randomFile(h, "photo-\(index).jpg", size: 20_000 + index * 997, seed: UInt64(index))
                let form = MultipartForm(parts: [.file("image", path: file.path), .text("index", "\(index)")])
                let id = try h.engine.add(UploadRequest(url: h.url, body: .multipart(form)))
                ids[id] = (file.name, sha256(file.bytes))
            }
            await h.engine.waitUntilIdle()
            var maxRunning = 0
            var running = Set<TaskID>()
            for event in h.events.all() {
                guard let snapshot = event.snapshot else { continue }
                if snapshot.state.isRunning { running.insert(snapshot.id) } else { running.remove(snapshot.id) }
                maxRunning = max(maxRunning, running.count)
            }
            #expect(maxRunning <= 8)
            #expect(maxRunning >= 2, "uploads ran concurrently")
            for (id, expected) in ids {
                let snapshot = try #require(h.engine.snapshot(id))
                #expect(snapshot.state == .succeeded)
                #expect(try received(snapshot).files.first?.sha256 == expected.sha)
                let history = h.events.snapshots(of: id)
                expectMonotonicProgress(history)
                #expect(
                    history.last?.progress.bytesSent == snapshot.progress.totalBytes, "the final event equals the total"
                )
            }
        }
    }

    @Test func everyBodyKindArrives() async throws {
        try await Harness.run { h in
            let image = randomFile(h, "scan.png", size: 70_001, seed: 3)
            let urlencoded = try h.engine.add(
                UploadRequest(
                    url: h.url,
                    body: .urlencoded(
                        URLEncodedForm(fields: [FormField("name", "Zoë & co"), FormField("tags[]", "a b")]))))
            let json = try h.engine.add(
                UploadRequest(url: h.url, body: .json(Array(#"{"RETCODE":"0000","list":[1,2]}"#.utf8))))
            let raw = try h.engine.add(
                UploadRequest(url: h.url + "/scan.png", method: .put, body: .rawFile(path: image.path)))
            let base64 = try h.engine.add(
                UploadRequest(
                    url: h.url, method: .patch,
                    body: .base64JSON(
                        Base64JSONBody(fileField: "image", path: image.path, fields: [FormField("user", "42")]))))

            let formResult = try received(try await h.finish(urlencoded))
            #expect(formResult.fields == [.init(name: "name", value: "Zoë & co"), .init(name: "tags[]", value: "a b")])
            #expect(formResult.contentType == "application/x-www-form-urlencoded")

            let jsonResult = try await h.finish(json)
            #expect(jsonResult.state == .succeeded)
            #expect(jsonResult.response?.json?[path: "json.RETCODE"] == .string("0000"))
            #expect(jsonResult.response?.json?[path: "json.list.1"] == .number("2"))

            let rawResult = try received(try await h.finish(raw))
            #expect(rawResult.method == "PUT")
            #expect(rawResult.contentType == "image/png")
            #expect(rawResult.files.first?.sha256 == sha256(image.bytes))
            #expect(rawResult.files.first?.size == 70_001)

            let base64Result = try await h.finish(base64)
            let echoed = try #require(base64Result.response?.json?[path: "json"])
            #expect(base64Result.response?.json?[path: "method"] == .string("PATCH"))
            #expect(echoed[path: "type"] == .string("png"))
            #expect(echoed[path: "user"] == .string("42"))
            #expect(Data(base64Encoded: echoed[path: "image"]?.text ?? "") == Data(image.bytes))
        }
    }

    @Test func streamOfUnknownLengthIsSentChunked() async throws {
        try await Harness.run { h in
            let fifo = h.files.path + "/pipe"
            #expect(mkfifo(fifo, 0o600) == 0)
            var generator = SeededGenerator(state: 9)
            let payload = randomBytes(3 << 20, using: &generator)
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                _ = payload.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            writer.start()
            let form = MultipartForm(parts: [.stream("log", from: .path(fifo), filename: "log.bin")])
            let id = try h.engine.add(UploadRequest(url: h.url, body: .multipart(form)))
            let done = try await h.finish(id)
            #expect(done.state == .succeeded)
            #expect(done.progress.totalBytes == nil)
            #expect(try received(done).files.first?.sha256 == sha256(payload))
            #expect(try received(done).files.first?.size == Int64(payload.count))
        }
    }
}

/// A file of seeded random bytes in the harness's folder.
/// The guard of the page-cache tests tells tmpfs from a disk, as
/// /proc/self/mounts lists them.
@Test func tmpfsIsToldFromADisk() throws {
    let mounts = FileManager.default.contents(atPath: "/proc/self/mounts") ?? Data()
    let entries = String(decoding: mounts, as: UTF8.self).split(separator: "\n")
        .map { $0.split(separator: " ").map(String.init) }.filter { $0.count > 2 }
    let kinds = ["tmpfs", "ext4", "xfs", "btrfs"]
    for entry in entries where access(entry[1], R_OK) == 0 && kinds.contains(entry[2]) {
        #expect(isOnTmpfs(entry[1]) == (entry[2] == "tmpfs"), "\(entry[1]) is \(entry[2])")
    }
    #expect(!isOnTmpfs("/nonexistent/path"))
    if let parent = pageCacheTestParent { #expect(!isOnTmpfs(parent)) }
}

/// Why the tests that evict a file from the page cache may not run.
let evictionNeedsADisk: Comment =
    "/tmp, .build and the current directory are all tmpfs, whose pages posix_fadvise cannot evict"

func randomFile(_ h: Harness, _ name: String, size: Int, seed: UInt64) -> (name: String, path: String, bytes: [UInt8]) {
    var generator = SeededGenerator(state: seed)
    let bytes = randomBytes(size, using: &generator)
    return (name, h.files.file(name, bytes), bytes)
}

/// An event log that asks for finished tasks only.
final class FinishedOnlyLog: UploadEventMonitor, @unchecked Sendable {
    private let log = EventLog()
    var queue: DispatchQueue { log.queue }

    func wants(_ event: UploadEvent) -> Bool {
        if case .finished = event { return true }
        return false
    }

    func handle(_ event: UploadEvent) {
        log.handle(event)
    }

    func all() -> [UploadEvent] {
        log.all()
    }
}
