#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Points fd 2 at a file (or /dev/null) while curses owns the screen, so a
/// stray log line cannot scribble over it, and puts it back afterwards.
struct StderrRedirect {
    /// The original stderr, kept open under another number; -1 if fd 2 was closed.
    let savedFD: Int32
    private var restored = false

    init(path: String?) throws(CursesTerminalError) {
        let target = path ?? "/dev/null"
        let fd = open(target, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpenStderrFile(path: target, errno: errno) }
        defer { closeDescriptor(fd) }
        // Close-on-exec, so a child process started during the session does not inherit it.
        let saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        guard saved >= 0 || errno == EBADF else { throw .systemCall("dup(2)", errno: errno) }
        guard dup2(fd, STDERR_FILENO) >= 0 else {
            let code = errno
            if saved >= 0 { closeDescriptor(saved) }
            throw .systemCall("dup2", errno: code)
        }
        savedFD = saved
    }

    /// Safe to call twice.
    mutating func restore() {
        guard !restored else { return }
        restored = true
        if savedFD >= 0 {
            _ = dup2(savedFD, STDERR_FILENO)
            closeDescriptor(savedFD)
        } else {
            closeDescriptor(STDERR_FILENO)
        }
    }
}
