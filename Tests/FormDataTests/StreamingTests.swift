import FormData
import Foundation
import Glibc
import TestSupport
import Testing

/// The body as a stream: bounded buffers, file regions, unknown-length
/// sources, and files that change while being read.
@Suite struct StreamingTests {
    let dir = TemporaryDirectory()

    /// Reads a whole body through a reader with a fixed small buffer.
    func drain(_ reader: BodyReader, bufferSize: Int) throws -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        var out: [UInt8] = []
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { return out }
            #expect(count <= bufferSize)
            out += buffer[0..<count]
        }
    }

    @Test func largeFileIsAFileRegionAndStreamsThroughASmallBuffer() throws {
        var generator = SeededGenerator(state: 7)
        let contents = randomBytes(3 << 20, using: &generator)
        let path = dir.file("big.bin", contents)
        let form = MultipartForm(parts: [.text("a", "1"), .file("big", path: path), .text("z", "2")])
        let body = try form.makeBody()
        #expect(body.segments.count == 3)
        guard case .file(let region) = body.segments[1] else {
            Issue.record("file part is not a file region: \(body.segments[1])")
            return
        }
        #expect(region.path == path && region.offset == 0 && region.length == Int64(contents.count))
        #expect(region.field == "big")

        let streamed = try drain(body.makeReader(), bufferSize: 4093)
        #expect(Int64(streamed.count) == body.contentLength)
        #expect(streamed == (try body.bytes()))
        let parts = try parseMultipart(streamed, boundary: form.boundary.value, sliceSize: 65536)
        #expect(parts.map(\.body) == [Array("1".utf8), contents, Array("2".utf8)])
    }

    @Test func nextChunkHonoursItsSize() throws {
        let path = dir.file("a.bin", [UInt8](repeating: 9, count: 10_000))
        let body = try MultipartForm(parts: [.file("a", path: path)]).makeBody()
        let reader = body.makeReader()
        var total = 0
        while let chunk = try reader.nextChunk(maxSize: 1000) {
            #expect(chunk.count <= 1000)
            total += chunk.count
        }
        #expect(Int64(total) == body.contentLength)
        #expect(reader.bytesProduced == body.contentLength)
        #expect(reader.isFinished)
    }

    @Test func eachReaderRereadsTheFileFromDisk() throws {
        let path = dir.file("a.txt", text: "first")
        let body = try MultipartForm(boundary: try Boundary("b"), parts: [.file("a", path: path)]).makeBody()
        #expect(try body.bytes() == (try body.bytes()))
        #expect(try parseMultipart(try body.bytes(), boundary: "b").map(\.text) == ["first"])
    }

    @Test func writesToAFile() throws {
        let source = dir.file("photo.png", [1, 2, 3, 4])
        let body = try MultipartForm(parts: [.file("p", path: source), .text("k", "v")]).makeBody()
        let out = dir.path + "/body.out"
        let written = try body.write(toFile: out)
        #expect(written == body.contentLength)
        let onDisk = try MultipartForm(parts: [.file("x", path: out)]).makeBody().segments
        guard case .file(let region) = onDisk[1] else {
            Issue.record("no region")
            return
        }
        #expect(region.length == body.contentLength)
        let fd = open(out, O_RDONLY)
        defer { close(fd) }
        var copy = [UInt8](repeating: 0, count: Int(written))
        #expect(copy.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } == Int(written))
        #expect(copy == (try body.bytes()))
    }

    @Test func fifoStreamIsChunkedAndArrivesWhole() throws {
        let path = dir.path + "/upload.fifo"
        #expect(mkfifo(path, 0o600) == 0)
        var generator = SeededGenerator(state: 11)
        let payload = randomBytes(1 << 20, using: &generator)
        let form = MultipartForm(parts: [.stream("log", from: .path(path), filename: "log.bin"), .text("after", "x")])
        let body = try form.makeBody()
        #expect(body.contentLength == nil)
        let writer = Thread { writeAll(payload, toPath: path) }
        writer.start()
        let bytes = try drain(body.makeReader(), bufferSize: 100_000)
        let parts = try parseMultipart(bytes, boundary: form.boundary.value)
        #expect(parts.map(\.body) == [payload, Array("x".utf8)])
        #expect(parts[0].contentType == "application/octet-stream")
        #expect(parts[0].filename == "log.bin")
    }

    @Test func descriptorStreamIsReadButNotClosed() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let payload = Array("streamed from a pipe".utf8)
        payload.withUnsafeBytes { _ = write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        let form = MultipartForm(parts: [.stream("s", from: .fileDescriptor(fds[0]))])
        let parts = try parseMultipart(
            try drain(form.makeBody().makeReader(), bufferSize: 7), boundary: form.boundary.value)
        #expect(parts.map(\.text) == ["streamed from a pipe"])
        #expect(parts[0].contentType == nil)
        #expect(fcntl(fds[0], F_GETFD) != -1, "the caller's descriptor must stay open")
    }

    // MARK: files that change after the body was built

    func expectFileChanged(_ body: RequestBody, path: String, detail: String) throws {
        let reader = body.makeReader()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        var produced = 0
        do {
            while true {
                let count = try reader.read(into: buffer)
                if count == 0 { break }
                produced += count
            }
            Issue.record("no error; produced \(produced) of \(body.contentLength!) bytes")
        } catch {
            #expect(error == .fileChanged(field: "f", path: path, detail: detail))
            #expect(Int64(produced) < body.contentLength!, "a complete body must not be produced")
            // The reader stays failed.
            #expect(throws: FormDataError.self) { try reader.read(into: buffer) }
        }
    }

    @Test func fileThatShrinksFailsInsteadOfSendingAShortBody() throws {
        let path = dir.file("shrink.bin", [UInt8](repeating: 1, count: 100_000))
        let body = try MultipartForm(parts: [.file("f", path: path)]).makeBody()
        #expect(truncate(path, 10) == 0)
        try expectFileChanged(
            body, path: path, detail: "its size was 100000 bytes when the upload was prepared and is now 10 bytes")
    }

    @Test func fileThatGrowsFailsInsteadOfSendingAPaddedOrCutBody() throws {
        let path = dir.file("grow.bin", [UInt8](repeating: 1, count: 50_000))
        let body = try MultipartForm(parts: [.file("f", path: path)]).makeBody()
        #expect(truncate(path, 60_000) == 0)
        try expectFileChanged(
            body, path: path, detail: "its size was 50000 bytes when the upload was prepared and is now 60000 bytes")
    }

    @Test func fileThatShrinksWhileBeingReadFails() throws {
        let path = dir.file("mid.bin", [UInt8](repeating: 1, count: 200_000))
        let body = try MultipartForm(parts: [.file("f", path: path)]).makeBody()
        let reader = body.makeReader()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 50_000, alignment: 16)
        defer { buffer.deallocate() }
        _ = try reader.read(into: buffer)
        #expect(truncate(path, 60_000) == 0)
        #expect(
            throws: FormDataError.fileChanged(
                field: "f", path: path,
                detail: "its size was 200000 bytes when the upload was prepared and is now 60000 bytes")
        ) {
            while try reader.read(into: buffer) > 0 {}
        }
    }

    @Test func fileReplacedOrRemovedFails() throws {
        let path = dir.file("swap.bin", [UInt8](repeating: 1, count: 1000))
        let body = try MultipartForm(parts: [.file("f", path: path)]).makeBody()
        let other = dir.file("other.bin", [UInt8](repeating: 2, count: 1000))
        #expect(rename(other, path) == 0)
        try expectFileChanged(body, path: path, detail: "it was replaced by another file")
        #expect(unlink(path) == 0)
        try expectFileChanged(body, path: path, detail: "it was removed")
    }

    @Test func fileRewrittenInPlaceFails() throws {
        let path = dir.file("edit.bin", [UInt8](repeating: 1, count: 1000))
        let body = try MultipartForm(parts: [.file("f", path: path)]).makeBody()
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        try expectFileChanged(body, path: path, detail: "it was modified during the upload")
    }
}

func writeAll(_ bytes: [UInt8], toPath path: String) {
    let fd = open(path, O_WRONLY)
    guard fd >= 0 else { return }
    var done = 0
    while done < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, min(8192, bytes.count - done)) }
        if count <= 0 { break }
        done += count
    }
    close(fd)
}
