import Hummingbird
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An open file sent as an answer's body, 1 MiB at a time, read on NIO's thread pool: a saved object of
/// GiBs is never held in memory, and the event loop never waits for the disk.
final class StreamedFile: Sendable {
    struct ChangedWhileSending: Error {}

    let fd: Int32
    let length: Int64

    /// Takes ownership of `fd`.
    init(fd: Int32, length: Int64) {
        self.fd = fd
        self.length = length
    }

    deinit { close(fd) }

    var body: ResponseBody {
        ResponseBody(contentLength: Int(length)) { writer in
            var offset: Int64 = 0
            while offset < self.length {
                let count = Int(min(1 << 20, self.length - offset))
                let position = offset
                let buffer = try await NIOThreadPool.singleton.runIfActive { () throws -> ByteBuffer in
                    var buffer = ByteBufferAllocator().buffer(capacity: count)
                    let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                        max(0, pread(self.fd, raw.baseAddress!, count, off_t(position)))
                    }
                    // A file cut short under us ends the answer rather than padding it.
                    guard read > 0 else { throw ChangedWhileSending() }
                    return buffer
                }
                offset += Int64(buffer.readableBytes)
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        }
    }
}
