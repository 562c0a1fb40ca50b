import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of one unfinished upload, open for one request: written at explicit offsets, and cut back
/// to an offset when a chunk must not count (a checksum mismatch, a body past the length).
final class TusDataFile {
    let path: String
    private var fd: Int32

    init(path: String) throws(ReceiverError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw .saveFailed("cannot open \(path): \(UploadDirectory.describeErrno())") }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    func write(_ buffer: ByteBuffer, at offset: Int64) throws(ReceiverError) {
        let failure: Int32? = buffer.withUnsafeReadableBytes { bytes in
            var done = 0
            while done < bytes.count {
                let written = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return nil
        }
        if let failure {
            throw .saveFailed("cannot write \(path): \(UploadDirectory.describeErrno(failure))")
        }
    }

    /// Drops everything after `offset`.
    func truncate(to offset: Int64) throws(ReceiverError) {
        guard ftruncate(fd, off_t(offset)) == 0 else {
            throw .saveFailed("cannot truncate \(path): \(UploadDirectory.describeErrno())")
        }
    }

    /// Appends the whole file at `source`, in 1 MiB reads (joining partial uploads).
    func append(contentsOf source: String, at offset: Int64) throws(ReceiverError) {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else { throw .saveFailed("cannot open \(source): \(UploadDirectory.describeErrno())") }
        defer { close(input) }
        var buffer = ByteBuffer()
        var position = offset
        while true {
            buffer.clear(minimumCapacity: 1 << 20)
            var failure: Int32 = 0
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 1 << 20) { raw in
                let count = read(input, raw.baseAddress!, raw.count)
                if count < 0 { failure = errno }
                return max(0, count)
            }
            if failure == EINTR { continue }
            if failure != 0 { throw .saveFailed("cannot read \(source): \(UploadDirectory.describeErrno(failure))") }
            if count == 0 { break }
            try write(buffer, at: position)
            position += Int64(count)
        }
    }
}
