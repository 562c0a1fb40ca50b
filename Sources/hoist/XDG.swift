import Foundation
import Glibc

/// The XDG base directories Hoist uses: config for profiles, state for
/// history and the journal.
enum XDG {
    /// `$variable` when set and not empty, else `$HOME/fallback`.
    static func directory(
        _ variable: String, fallback: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let value = environment[variable], !value.isEmpty { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/" + fallback
    }

    /// Creates every missing folder of `path` with mode 0700: what Hoist
    /// keeps may carry tokens and personal data.
    static func makePrivateDirectories(_ path: String) throws(StateFileError) {
        var current = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + component
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw StateFileError("cannot create \(current): \(String(cString: strerror(errno)))")
            }
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
