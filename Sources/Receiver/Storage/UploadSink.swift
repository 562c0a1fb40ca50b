import Crypto
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One file being saved: bytes go straight to disk and through SHA-256 as they arrive, so memory stays
/// bounded whatever the size. Either `finish()` or `abort()` it; `abort()` removes the partial file.
final class UploadSink {
    let path: String
    /// Name relative to the receiver's directory.
    let savedAs: String
    private(set) var size: Int64 = 0
    private var fd: Int32
    private var hasher = SHA256()

    init(fd: Int32, path: String, savedAs: String) {
        self.fd = fd
        self.path = path
        self.savedAs = savedAs
    }

    deinit {
        // A sink that was neither finished nor aborted belongs to a failed request.
        abort()
    }

    func write(_ buffer: ByteBuffer) throws(ReceiverError) {
        precondition(fd >= 0, "write after finish/abort")
        let failure: Int32? = buffer.withUnsafeReadableBytes { bytes in
            hasher.update(bufferPointer: bytes)
            var offset = 0
            while offset < bytes.count {
                let written = posixWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure {
            throw .saveFailed("cannot write \(path): \(UploadDirectory.describeErrno(failure))")
        }
        size += Int64(buffer.readableBytes)
    }

    /// Closes the file; returns its lowercase hex SHA-256.
    func finish() throws(ReceiverError) -> String {
        let fd = self.fd
        self.fd = -1
        if close(fd) != 0 {
            let code = errno
            unlink(path)
            throw .saveFailed("cannot close \(path): \(UploadDirectory.describeErrno(code))")
        }
        return hasher.finalize().map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Closes and removes the partial file; harmless after `finish()`.
    func abort() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(path)
    }
}

// Inside `UploadSink`, `write` means the method; this reaches the libc function.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
