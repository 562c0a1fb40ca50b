import FormData
import Foundation
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// How a file is read for its body: as it is when its task starts, in place from the page cache or on
/// the thread pool, as mapped slices.
extension EngineUploadTests {
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
}

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
