import AsyncHTTPClient
import CLinux
import Crypto
import FormData
import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Streams a `RequestBody` into AsyncHTTPClient's body writer with
/// backpressure. On plaintext HTTP/1.1, file segments go out as mapped
/// slices (`LeasedFile`, to a server on this machine) or by sendfile;
/// otherwise every byte is read by FormData's `BodyReader` on NIO's thread
/// pool, so the event loop never blocks.
///
/// File handles are closed only in `finish()`, which the transport calls on
/// the request's event loop after the request completed or failed, so no
/// handle is closed under a pending write.
final class BodyStreamer: Sendable {
    /// Bytes read at a time through a `BodyReader`.
    static let chunkSize = 1 << 20
    /// A body up to this size is read whole and sent as one buffer (see
    /// `HTTPTransport.start`): for small files, sendfile setup and extra
    /// writes cost more than copying the bytes.
    static let smallBodyLimit: Int64 = 256 << 10

    private let body: RequestBody
    private let files: FileSending.Method
    private let limiter: RateLimiter?
    /// The body already read into one buffer (a small one), sent as it is.
    private let whole: ByteBuffer?
    private let state = NIOLockedValueBox(State())

    private struct State {
        var files: [OpenFile] = []
        /// The file going out as mapped slices, while its lease lasts.
        var lease: Lease?
        var finished = false
    }

    private struct Lease {
        var file: LeasedFile
        /// When the watchdog first saw a break requested.
        var breakSeen: NIODeadline?
    }

    private struct OpenFile {
        /// Our own descriptor of the file: the file is checked against its
        /// snapshot through it (while sending and at the end), it is mapped,
        /// and sendfile gets a duplicate of it.
        var descriptor: Int32
        var region: FormData.FileRegion
        /// Only when the file cannot be mapped.
        var sendfile: NIOFileHandle?
    }

    init(body: RequestBody, files: FileSending.Method, limiter: RateLimiter? = nil, whole: ByteBuffer? = nil) {
        self.body = body
        self.files = files
        self.limiter = limiter
        self.whole = whole
    }

    /// The body ends the moment its last declared byte is handed to the
    /// writer, not when that write completes and the writing task resumes
    /// (which a busy task pool can delay by 100 ms and more). Until the end,
    /// AsyncHTTPClient counts an answer that came as early: a server that
    /// answered and closed fails the request ("the server closed the
    /// connection"; see `ResponseCollector.answerBeforeClose`), and a
    /// connection released after the client shut down crashed its pool.
    func makeBody(on eventLoop: any EventLoop) -> HTTPClient.Body {
        let length = body.contentLength
        return .stream(contentLength: length) { writer in
            let end = BodyEnd(eventLoop.makePromise(of: Void.self), length: length)
            let handOn: @Sendable (IOData) -> EventLoopFuture<Void> = { part in
                let written = writer.write(part)
                end.wrote(part.readableBytes)
                return written
            }
            let counting = HTTPClient.Body.StreamWriter { [limiter = self.limiter] part in
                limiter?.write(part, to: handOn, on: eventLoop) ?? handOn(part)
            }
            Task {
                do {
                    try await self.write(to: counting, on: eventLoop)
                    end.succeed()
                } catch {
                    end.fail(error)
                }
            }
            return end.future
        }
    }

    /// A small body in one buffer, read right here when every file of it is
    /// in the page cache (reads that never wait for a disk); nil when one is
    /// not, or on any error, which `readWhole` on the thread pool then meets
    /// and reports. Spares the hop to the pool for most small uploads.
    static func readWholeIfCached(_ body: RequestBody) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: Int(body.contentLength ?? 0))
        for segment in body.segments {
            switch segment {
            case .bytes(let bytes):
                buffer.writeBytes(bytes)
            case .file(let region):
                guard let descriptor = try? region.open() else { return nil }
                defer { close(descriptor) }
                let length = Int(region.length)
                var complete = false
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
                    complete = hoist_pread_nowait(descriptor, raw.baseAddress, length, off_t(region.offset)) == length
                    return complete ? length : 0
                }
                guard complete, (try? region.verify(descriptor: descriptor)) != nil else { return nil }
            case .base64, .stream:
                return nil
            }
        }
        return buffer
    }

    /// The size and SHA-256 of each file in `whole`, the body read whole;
    /// `nil` when a file's bytes are not there as they are (base64, a stream).
    static func sentFiles(of body: RequestBody, in whole: ByteBuffer) -> [SentFile]? {
        var files: [SentFile] = []
        var offset = 0
        for segment in body.segments {
            switch segment {
            case .bytes(let bytes):
                offset += bytes.count
            case .file(let region):
                let length = Int(region.length)
                guard
                    let sha256 = whole.withUnsafeReadableBytes({ all -> String? in
                        guard offset + length <= all.count else { return nil }
                        return SHA256.hash(data: UnsafeRawBufferPointer(rebasing: all[offset..<offset + length]))
                            .withUnsafeBytes { Hex.lowercase($0) }
                    })
                else { return nil }
                files.append(SentFile(size: region.length, sha256: sha256))
                offset += length
            case .base64, .stream:
                return nil
            }
        }
        return files
    }

    /// Reads a body of known, small length into one buffer. Blocking: call
    /// on the thread pool.
    static func readWhole(_ body: RequestBody) throws(FormDataError) -> ByteBuffer {
        let reader = body.makeReader()
        defer { reader.close() }
        var buffer = ByteBufferAllocator().buffer(capacity: Int(body.contentLength ?? 0))
        while !reader.isFinished {
            var failure: FormDataError?
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 << 10) { raw in
                do throws(FormDataError) { return try reader.read(into: raw) } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            if count == 0 { break }
        }
        return buffer
    }

    private func write(to writer: HTTPClient.Body.StreamWriter, on eventLoop: any EventLoop) async throws {
        if let whole { return try await writer.write(.byteBuffer(whole)).get() }
        guard files != .threadPool else {
            try await writeThroughReader(body.segments, to: writer)
            return
        }
        // Small files go with the bytes around them, read a megabyte at a
        // time: one request of 10,000 parts of 1 KiB had a thread-pool hop
        // and a sendfile per part (2.66 s); large ones go as slices or by sendfile.
        var pending: [RequestBody.Segment] = []
        for segment in body.segments {
            if case .file(let region) = segment, region.length > Self.smallBodyLimit {
                try await writeThroughReader(pending, to: writer)
                pending = []
                try await writeFileRegion(region, to: writer, on: eventLoop)
            } else {
                pending.append(segment)
            }
        }
        try await writeThroughReader(pending, to: writer)
    }

    private func writeFileRegion(
        _ region: FormData.FileRegion, to writer: HTTPClient.Body.StreamWriter, on eventLoop: any EventLoop
    ) async throws {
        let descriptor = try region.open()
        let index = state.withLockedValue { state -> Int? in
            guard !state.finished else { return nil }
            state.files.append(OpenFile(descriptor: descriptor, region: region))
            return state.files.count - 1
        }
        guard let index else {
            close(descriptor)
            throw CancellationError()
        }
        let lease = files == .mapped ? LeasedFile.take(descriptor).flatMap(startLease) : nil
        defer { if lease != nil { endLease() } }
        try await SlicePump.send(
            region, descriptor: descriptor, lease: lease, sendfileHandle: { try self.sendfileHandle(index) },
            to: writer, on: eventLoop
        ).get()
    }

    private func startLease(_ file: LeasedFile) -> LeasedFile? {
        let started = state.withLockedValue { state -> Bool in
            guard !state.finished else { return false }
            state.lease = Lease(file: file)
            return true
        }
        if !started { file.end() }
        return started ? file : nil
    }

    private func endLease() {
        state.withLockedValue { state in
            defer { state.lease = nil }
            return state.lease?.file
        }?.end()
    }

    /// Why the request must stop now, if it must. Called by the transport's
    /// watchdog on the event loop, about once a second.
    /// - The file being sent changed: sendfile past the end of a file cut
    ///   short stalls instead of failing.
    /// - A lease break has waited for `LeasedFile.breakGrace`: the mapped
    ///   slices are stuck behind a receiver that stopped reading. Ending the
    ///   request drops them, and the lease with them, before the kernel
    ///   would break it under a write.
    func reasonToStop(now: NIODeadline) -> FormDataError? {
        state.withLockedValue { state in
            guard !state.finished, let file = state.files.last else { return nil }
            do throws(FormDataError) {
                try file.region.verify(descriptor: file.descriptor)
            } catch {
                return error
            }
            guard let lease = state.lease, lease.file.breakRequested else { return nil }
            guard let seen = lease.breakSeen else {
                state.lease?.breakSeen = now
                return nil
            }
            guard now - seen >= LeasedFile.breakGrace else { return nil }
            return .fileChanged(
                field: file.region.field, path: file.region.path,
                detail: "another program waited to change it while the server stopped reading")
        }
    }

    /// NIO's handle for sendfile of `files[index]`, made on first use: a
    /// second descriptor, as NIO refuses a handle used twice at once.
    private func sendfileHandle(_ index: Int) throws -> NIOFileHandle {
        try state.withLockedValue { state in
            guard !state.finished else { throw CancellationError() }
            if let handle = state.files[index].sendfile { return handle }
            let file = state.files[index]
            let duplicate = dup(file.descriptor)
            guard duplicate >= 0 else {
                throw FormDataError.readFailed(
                    field: file.region.field, path: file.region.path, reason: "cannot duplicate the descriptor")
            }
            let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: duplicate)
            state.files[index].sendfile = handle
            return handle
        }
    }

    /// Bytes, base64 and streams (and files, off plaintext) through a BodyReader on the thread pool.
    private func writeThroughReader(_ segments: [RequestBody.Segment], to writer: HTTPClient.Body.StreamWriter)
        async throws
    {
        guard !segments.isEmpty else { return }
        if segments.count == 1, case .bytes(let bytes) = segments[0] {
            try await writer.write(.byteBuffer(ByteBuffer(bytes: bytes))).get()
            return
        }
        let reader = ReaderBox(RequestBody(contentType: body.contentType, segments: segments).makeReader())
        defer { reader.close() }
        while true {
            let (chunk, finished) = try await NIOThreadPool.singleton.runIfActive {
                (try reader.next(Self.chunkSize), reader.isFinished)
            }
            guard let chunk else { return }
            try await writer.write(.byteBuffer(chunk)).get()
            if finished { return }
        }
    }

    /// Checks every sent file against its snapshot once more, then closes the
    /// handles. Call on the request's event loop once the request has ended.
    /// Returns why a file changed during the send, if one did.
    func finish() -> FormDataError? {
        let (files, lease) = state.withLockedValue { state in
            state.finished = true
            defer { (state.files, state.lease) = ([], nil) }
            return (state.files, state.lease)
        }
        lease?.file.end()
        var change: FormDataError?
        for file in files {
            do throws(FormDataError) {
                try file.region.verify(descriptor: file.descriptor)
            } catch {
                change = change ?? error
            }
            close(file.descriptor)
            try? file.sendfile?.close()
        }
        return change
    }
}

/// A BodyReader used by one task at a time, hopping between threads.
private final class ReaderBox: @unchecked Sendable {
    private let reader: BodyReader

    init(_ reader: BodyReader) {
        self.reader = reader
    }

    func next(_ size: Int) throws -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { raw in
            try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<size]))
        }
        return count == 0 ? nil : buffer
    }

    var isFinished: Bool { reader.isFinished }

    func close() {
        reader.close()
    }
}

/// The end of a streamed body: given once `length` bytes were handed to the
/// writer, or when the writing task ends; whichever comes first.
private final class BodyEnd: Sendable {
    private let promise: EventLoopPromise<Void>
    private let length: Int64?
    /// Bytes handed to the writer; nil once the end was given.
    private let handed = NIOLockedValueBox<Int64?>(0)

    init(_ promise: EventLoopPromise<Void>, length: Int64?) {
        self.promise = promise
        self.length = length
    }

    var future: EventLoopFuture<Void> { promise.futureResult }

    func wrote(_ count: Int) {
        let complete = handed.withLockedValue { handed -> Bool in
            guard let before = handed, let length else { return false }
            guard before + Int64(count) >= length else {
                handed = before + Int64(count)
                return false
            }
            handed = nil
            return true
        }
        if complete { promise.succeed() }
    }

    func succeed() {
        if take() { promise.succeed() }
    }

    func fail(_ error: any Error) {
        if take() { promise.fail(error) }
    }

    /// Whether the end was still to give (and is now given).
    private func take() -> Bool {
        handed.withLockedValue { handed in
            defer { handed = nil }
            return handed != nil
        }
    }
}
