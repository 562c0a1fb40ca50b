import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The program's wake function: any thread writes a byte, the loop sees the
/// read end become readable and delivers one `.wake`.
final class WakePipe: Sendable {
    let readFD: Int32
    // The write end sits behind a lock so that a wake arriving after the
    // session ended never writes into a descriptor number reused since.
    private let writeFD: Mutex<Int32>
    private let pipe: SelfPipe

    init() throws(CursesTerminalError) {
        pipe = try SelfPipe()
        readFD = pipe.readFD
        writeFD = Mutex(pipe.writeFD)
    }

    func wake() {
        writeFD.withLock { fd in
            guard fd >= 0 else { return }
            var byte: UInt8 = 1
            // EAGAIN means the pipe is full, so the loop is already woken.
            while write(fd, &byte, 1) < 0, errno == EINTR {}
        }
    }

    /// Empties the pipe; true when at least one wake was pending.
    func drain() -> Bool {
        !pipe.drain().isEmpty
    }

    func close() {
        writeFD.withLock { fd in
            guard fd >= 0 else { return }
            pipe.close()
            fd = -1
        }
    }
}
