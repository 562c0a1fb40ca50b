import AsyncHTTPClient
import Glibc
import FormData
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Streams a `RequestBody` into AsyncHTTPClient's body writer with
/// backpressure. On plaintext HTTP/1.1, file segments go out as
/// `FileRegion`s (sendfile); otherwise every byte is read by FormData's
/// `BodyReader` on NIO's thread pool, so the event loop never blocks.
///
/// File handles are closed only in `finish()`, which the transport calls on
/// the request's event loop after the request completed or failed, so no
/// handle is closed under a pending write.
final class BodyStreamer: Sendable {
    static let chunkSize = 1 << 20
    /// A body up to this size is read whole and sent as one buffer (see
    /// `HTTPTransport.start`): for small files, sendfile setup and extra
    /// writes cost more than copying the bytes.
    static let smallBodyLimit: Int64 = 256 << 10

    private let body: RequestBody
    private let useFileRegions: Bool
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// NIO's handle for sendfile, and a second descriptor of the same
        /// file for our own checks: NIO refuses a handle used twice at once.
        var handles: [(handle: NIOFileHandle, check: Int32, region: FormData.FileRegion)] = []
        var finished = false
    }

    init(body: RequestBody, useFileRegions: Bool) {
        self.body = body
        self.useFileRegions = useFileRegions
    }

    func makeBody(on eventLoop: any EventLoop) -> HTTPClient.Body {
        .stream(contentLength: body.contentLength) { writer in
            let promise = eventLoop.makePromise(of: Void.self)
            promise.completeWithTask { try await self.write(to: writer) }
            return promise.futureResult
        }
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
                do throws(FormDataError) { return try reader.read(into: raw) } catch { failure = error; return 0 }
            }
            if let failure { throw failure }
            if count == 0 { break }
        }
        return buffer
    }

    private func write(to writer: HTTPClient.Body.StreamWriter) async throws {
        guard useFileRegions else {
            try await writeThroughReader(body.segments, to: writer)
            return
        }
        var pending: [RequestBody.Segment] = []
        for segment in body.segments {
            if case .file(let region) = segment {
                try await writeThroughReader(pending, to: writer)
                pending = []
                try await writeFileRegion(region, to: writer)
            } else {
                pending.append(segment)
            }
        }
        try await writeThroughReader(pending, to: writer)
    }

    private func writeFileRegion(_ region: FormData.FileRegion, to writer: HTTPClient.Body.StreamWriter) async throws {
        let check = try region.open()
        let duplicate = dup(check)
        guard duplicate >= 0 else {
            close(check)
            throw FormDataError.readFailed(field: region.field, path: region.path, reason: "cannot duplicate the descriptor")
        }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: duplicate)
        let accepted = state.withLockedValue { state -> Bool in
            guard !state.finished else { return false }
            state.handles.append((handle, check, region))
            return true
        }
        guard accepted else {
            try? handle.close()
            close(check)
            throw CancellationError()
        }
        var offset = region.offset
        let end = region.offset + region.length
        while offset < end {
            // Re-check before each slice: sendfile past a shortened file would stall, not fail.
            try region.verify(descriptor: check)
            let sliceEnd = min(offset + Int64(Self.chunkSize), end)
            let slice = NIOCore.FileRegion(fileHandle: handle, readerIndex: Int(offset), endIndex: Int(sliceEnd))
            try await writer.write(.fileRegion(slice)).get()
            offset = sliceEnd
        }
    }

    /// Bytes, base64 and streams (and files, off plaintext) through a BodyReader on the thread pool.
    private func writeThroughReader(_ segments: [RequestBody.Segment], to writer: HTTPClient.Body.StreamWriter) async throws {
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
        let handles = state.withLockedValue { state in
            state.finished = true
            defer { state.handles = [] }
            return state.handles
        }
        var change: FormDataError?
        for (handle, check, region) in handles {
            do throws(FormDataError) {
                try region.verify(descriptor: check)
            } catch {
                change = change ?? error
            }
            close(check)
            try? handle.close()
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
