#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A non-blocking, close-on-exec pipe the poll loop watches. Writers only
/// need to make it readable, so a full pipe (EAGAIN) is as good as a write.
struct SelfPipe {
    let readFD: Int32
    let writeFD: Int32

    init() throws(CursesTerminalError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .systemCall("pipe", errno: errno) }
        for fd in fds {
            // Non-blocking on both ends: the reader drains until EAGAIN, and a
            // writer (possibly a signal handler) must never block.
            let flags = fcntl(fd, F_GETFL)
            let descriptorFlags = fcntl(fd, F_GETFD)
            guard flags >= 0, descriptorFlags >= 0,
                fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0,
                fcntl(fd, F_SETFD, descriptorFlags | FD_CLOEXEC) == 0
            else {
                let code = errno
                closeDescriptor(fds[0])
                closeDescriptor(fds[1])
                throw .systemCall("fcntl", errno: code)
            }
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    /// Everything written so far, read until the pipe is empty.
    func drain() -> [UInt8] {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            if count > 0 {
                collected.append(contentsOf: buffer[0..<count])
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return collected  // 0: no writers left; -1 EAGAIN: empty
            }
        }
    }

    func close() {
        closeDescriptor(readFD)
        closeDescriptor(writeFD)
    }
}

/// `close(2)`, reachable from inside types that have their own `close()`.
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
