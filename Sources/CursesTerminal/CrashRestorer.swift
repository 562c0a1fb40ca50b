#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A crash (a Swift trap, a bad access) skips every defer, so endwin never
// runs and the shell is left in raw mode on the alternate screen. These
// handlers do the async-signal-safe part of endwin by hand and then let the
// previous handler (the default action, or Swift's backtracer) take over.
// They read only globals filled in before they were installed.
nonisolated(unsafe) private var crashResetBytes: UnsafeMutableBufferPointer<UInt8>?
nonisolated(unsafe) private var crashTerminalModes: UnsafeMutablePointer<termios>?
nonisolated(unsafe) private var crashSavedStderr: Int32 = -1
nonisolated(unsafe) private var crashPreviousActions: UnsafeMutablePointer<sigaction>?
// Touched only by install and uninstall, on the session's thread.
nonisolated(unsafe) private var crashHandlersInstalled = false

private let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT]
private let crashActionSlots = 65

private func restoreTerminalOnCrash(_ signal: Int32) {
    if let bytes = crashResetBytes, let base = bytes.baseAddress {
        _ = write(STDOUT_FILENO, base, bytes.count)
    }
    if let modes = crashTerminalModes {
        _ = tcsetattr(STDIN_FILENO, TCSANOW, modes)
    }
    // The backtrace that follows should reach the user, not /dev/null.
    if crashSavedStderr >= 0 {
        _ = dup2(crashSavedStderr, STDERR_FILENO)
    }
    if let previous = crashPreviousActions, signal > 0, Int(signal) < crashActionSlots {
        _ = sigaction(signal, previous + Int(signal), nil)
    }
    // Pending until this handler returns, then delivered to the previous handler.
    _ = raise(signal)
}

enum CrashRestorer {
    /// `terminalModes` are the tty modes from before curses started,
    /// `resetSequence` the bytes that leave curses' screen modes.
    static func install(terminalModes: termios?, resetSequence: [UInt8], savedStderr: Int32) {
        guard !crashHandlersInstalled else { return }
        // No handler is installed between sessions, so the old buffers can go.
        crashResetBytes?.deallocate()
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: resetSequence.count)
        _ = bytes.initialize(from: resetSequence)
        crashResetBytes = bytes
        crashTerminalModes?.deallocate()
        crashTerminalModes = nil
        if let terminalModes {
            let modes = UnsafeMutablePointer<termios>.allocate(capacity: 1)
            modes.initialize(to: terminalModes)
            crashTerminalModes = modes
        }
        crashSavedStderr = savedStderr
        let previous = crashPreviousActions ?? .allocate(capacity: crashActionSlots)
        previous.initialize(repeating: sigaction(), count: crashActionSlots)
        crashPreviousActions = previous
        crashHandlersInstalled = true

        for signal in crashSignals {
            // Use the alternate stack where there is one: a stack overflow arrives as SIGSEGV.
            _ = installHandler(restoreTerminalOnCrash, for: signal, flags: SA_ONSTACK, saving: previous + Int(signal))
        }
    }

    /// Puts the previous handlers back. The buffers stay allocated until
    /// the next session: a handler running on another thread right now may
    /// still read them.
    static func uninstall() {
        guard crashHandlersInstalled, let previous = crashPreviousActions else { return }
        for signal in crashSignals {
            _ = sigaction(signal, previous + Int(signal), nil)
        }
        crashSavedStderr = -1
        crashHandlersInstalled = false
    }
}

/// The tty modes of stdin, to restore after a crash; nil if unreadable.
func currentTerminalModes() -> termios? {
    var modes = termios()
    return tcgetattr(STDIN_FILENO, &modes) == 0 ? modes : nil
}
