import Glibc

/// `-u user` alone: the password is asked on the terminal, not echoed, as
/// curl asks it; it never enters the command line, the shell's history or
/// `/proc/PID/cmdline`.
enum PasswordPrompt {
    /// The terminal's settings while echo is off, for Ctrl-C to put back.
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var terminal: Int32 = -1

    static func ask(for user: String) throws -> String {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw BadInput("-u \(user): no terminal to ask the password on; give -u user:password")
        }
        defer { close(tty) }
        write(tty, "Enter host password for user '\(user)':")
        var settings = termios()
        let echoOff = tcgetattr(tty, &settings) == 0
        if echoOff {
            (saved, terminal) = (settings, tty)
            var quiet = settings
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(tty, TCSAFLUSH, &quiet)
            signal(SIGINT) { _ in
                tcsetattr(PasswordPrompt.terminal, TCSANOW, &PasswordPrompt.saved)
                _exit(130)
            }
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        if echoOff {
            tcsetattr(tty, TCSAFLUSH, &settings)
            signal(SIGINT, SIG_DFL)
        }
        write(tty, "\n")
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        writeAll(Array(text.utf8), to: descriptor)
    }
}
