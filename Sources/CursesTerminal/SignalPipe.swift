#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The handler may run on any thread at any moment, so it may only touch
// plain globals set before it was installed, and only call write().
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1

private func forwardSignalToPipe(_ signal: Int32) {
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipeWriteFD, &byte, 1)
    errno = savedErrno
}

/// Turns SIGINT, SIGTERM, SIGHUP and SIGWINCH into bytes on a pipe that the
/// poll loop reads, so they are handled on the loop's thread. Installed
/// before ncurses starts, so ncurses sees handlers already present and keeps
/// its own (which would act inside the signal) out.
struct SignalPipe {
    static let terminating: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    static let forwarded: [Int32] = terminating + [SIGWINCH]

    private let pipe: SelfPipe
    private var previous: [(signal: Int32, action: sigaction)] = []

    var readFD: Int32 { pipe.readFD }

    /// Only one session may own the process's signal handlers at a time.
    static func install() throws(CursesTerminalError) -> SignalPipe {
        guard signalPipeWriteFD < 0 else { throw .alreadyRunning }
        var installed = SignalPipe(pipe: try SelfPipe())
        // The descriptor is in place before any handler can read it.
        signalPipeWriteFD = installed.pipe.writeFD
        for signal in forwarded {
            var old = sigaction()
            // SA_RESTART: other threads (the upload engine's) should not see EINTR
            // because of us; poll() is interrupted regardless, which is all the loop needs.
            guard installHandler(forwardSignalToPipe, for: signal, flags: SA_RESTART, saving: &old) == 0 else {
                let code = errno
                installed.restore()
                throw .systemCall("sigaction", errno: code)
            }
            installed.previous.append((signal, old))
        }
        return installed
    }

    private init(pipe: SelfPipe) {
        self.pipe = pipe
    }

    /// The signals that arrived since the last call, oldest first.
    func drain() -> [Int32] {
        pipe.drain().map { Int32($0) }
    }

    /// Puts the previous handlers back, then closes the pipe. Safe to call twice.
    mutating func restore() {
        for (signal, var action) in previous.reversed() {
            _ = sigaction(signal, &action, nil)
        }
        previous.removeAll()
        guard signalPipeWriteFD == pipe.writeFD else { return }
        signalPipeWriteFD = -1
        pipe.close()
    }
}

/// Sets `handler` for `signal` with an empty mask and `flags`, saving the old action.
func installHandler(
    _ handler: @escaping @convention(c) (Int32) -> Void, for signal: Int32, flags: Int32,
    saving old: UnsafeMutablePointer<sigaction>
) -> Int32 {
    var action = sigaction()
    #if os(Linux)
        action.__sigaction_handler.sa_handler = handler
    #else
        action.__sigaction_u.__sa_handler = handler
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = flags
    return sigaction(signal, &action, old)
}
