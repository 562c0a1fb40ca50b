import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// Real uploads through AsyncHTTPClient to the real Receiver on loopback.
@Suite(.serialized) struct EngineUploadTests {
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
func randomFile(_ h: Harness, _ name: String, size: Int, seed: UInt64) -> (name: String, path: String, bytes: [UInt8]) {
    var generator = SeededGenerator(state: seed)
    let bytes = randomBytes(size, using: &generator)
    return (name, h.files.file(name, bytes), bytes)
}
