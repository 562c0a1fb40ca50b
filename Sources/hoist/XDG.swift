import FoundationEssentials
import Glibc
import UploadEngine

/// The XDG base directories Hoist uses: config for profiles, state for
/// history and the journal.
enum XDG {
    /// `$variable` when set and not empty, else `$HOME/fallback`.
    static func directory(
        _ variable: String, fallback: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let value = environment[variable], !value.isEmpty { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeDirectory()
        return home + "/" + fallback
    }

    /// Creates every missing folder of `path` with mode 0700: what Hoist
    /// keeps may carry tokens and personal data. Hoist's own folders (named
    /// `hoist`, and those inside one) that exist already must be real
    /// folders of this user: a link or another user's folder is refused,
    /// one that others can read is made 0700 with a warning.
    static func makePrivateDirectories(_ path: String) throws(StateFileError) {
        var current = ""
        var inHoist = false
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            inHoist = inHoist || component == "hoist"
            if mkdir(current, 0o700) == 0 { continue }
            guard errno == EEXIST else {
                throw StateFileError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
            if inHoist { try checkPrivate(current) }
        }
    }

    /// Said once per folder, on stderr, when a folder is tightened.
    nonisolated(unsafe) static var warn: (String) -> Void = { printError("hoist: warning: " + $0) }

    static func checkPrivate(_ folder: String) throws(StateFileError) {
        var info = stat()
        guard lstat(folder, &info) == 0 else { throw .errno("cannot check", folder) }
        let kind = info.st_mode & S_IFMT
        guard kind != S_IFLNK else {
            throw StateFileError(
                "\(folder) is a symbolic link; Hoist keeps tokens and personal data there, so it must be a real folder")
        }
        guard kind == S_IFDIR else { throw StateFileError("\(folder) is not a folder") }
        guard info.st_uid == geteuid() else {
            throw StateFileError(
                "\(folder) belongs to another user (uid \(info.st_uid)); Hoist keeps tokens and personal data there")
        }
        let mode = info.st_mode & 0o777
        if mode & 0o077 != 0 {
            guard chmod(folder, 0o700) == 0 else { throw .errno("cannot make private", folder) }
            warn("\(folder) was readable by others (mode \(String(mode, radix: 8))); it is 0700 now")
        }
    }
}

/// A state or config file that could not be read or written; the text names it.
struct StateFileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }

    /// `what path: strerror(errno)`.
    static func errno(_ what: String, _ path: String) -> StateFileError {
        StateFileError("\(what) \(path): \(String(cString: strerror(Glibc.errno)))")
    }
}
