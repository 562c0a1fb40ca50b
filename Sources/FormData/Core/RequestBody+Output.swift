import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension RequestBody {
    /// The whole body in memory, for small forms. Throws `tooLargeForMemory`
    /// rather than grow past `limit` bytes (16 MiB by default).
    public func data(limit: Int64 = 16 << 20) throws(FormDataError) -> Data {
        if let length = contentLength, length > limit { throw .tooLargeForMemory(limit: limit) }
        var data = Data(capacity: Int(contentLength ?? 64 * 1024))
        let reader = makeReader()
        defer { reader.close() }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let count = try reader.read(into: chunk)
            if count == 0 { return data }
            if Int64(data.count + count) > limit { throw .tooLargeForMemory(limit: limit) }
            data.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        }
    }

    /// Writes the body to a new file at `path` (replacing one that exists).
    /// A failed write removes the partial file. Returns the bytes written.
    @discardableResult
    public func write(toFile path: String, bufferSize: Int = 1 << 20) throws(FormDataError) -> Int64 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .writeFailed(path: path, reason: errorText(errno)) }
        let written: Int64
        do throws(FormDataError) {
            written = try write(toDescriptor: fd, name: path, bufferSize: bufferSize)
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        guard close(fd) == 0 else {
            let reason = errorText(errno)
            unlink(path)
            throw .writeFailed(path: path, reason: reason)
        }
        return written
    }

    /// Writes the body to an open descriptor (a pipe, stdout, /dev/null) in
    /// chunks of `bufferSize` bytes. `name` is used in error messages.
    @discardableResult
    public func write(toDescriptor fd: Int32, name: String, bufferSize: Int = 1 << 20) throws(FormDataError) -> Int64 {
        let reader = makeReader()
        defer { reader.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 4096)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { return total }
            var done = 0
            while done < count {
                let result = Glibc.write(fd, buffer.baseAddress! + done, count - done)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw .writeFailed(path: name, reason: errorText(errno))
                }
                done += result
            }
            total += Int64(count)
        }
    }
}
