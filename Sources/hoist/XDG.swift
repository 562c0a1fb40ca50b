import Foundation

/// The XDG base directories Hoist uses: config for profiles, state for history.
enum XDG {
    /// `$variable` when set and not empty, else `$HOME/fallback`.
    static func directory(
        _ variable: String, fallback: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let value = environment[variable], !value.isEmpty { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/" + fallback
    }
}
