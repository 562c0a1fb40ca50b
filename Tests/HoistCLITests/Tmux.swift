import Foundation
import TestSupport
import Testing

/// A detached tmux session running a shell, driven like a user would:
/// send keys, read the screen with `capture-pane -p`.
struct Tmux {
    let session: String
    /// The folder the shell runs in, kept until the session is killed: a
    /// test's `defer { Task { await tmux.kill() } }` runs after the test's
    /// own references are gone, and the folder must outlive what runs in it.
    let folder: TemporaryDirectory
    /// The pane's shell, which leads the session its programs run in.
    let leader: Int32?
    /// The tests' own tmux server, apart from any the user runs.
    static let socket = "hoist-tests-\(getpid())"

    private static func tmux(_ arguments: [String]) async throws -> RunResult {
        try await run("/usr/bin/tmux", ["-L", socket] + arguments, timeout: .seconds(30))
    }

    /// Starts `bash` in a `width`×`height` pane, in `folder` (or its `subfolder`), with a UTF-8 locale.
    static func start(width: Int, height: Int, in folder: TemporaryDirectory, subfolder: String? = nil)
        async throws -> Tmux
    {
        let directory = subfolder.map(folder.sub) ?? folder.path
        let session = "hoist-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let arguments = [
            "-f", "/dev/null", "new-session", "-d", "-s", session, "-x", "\(width)", "-y", "\(height)", "-c", directory,
            "env", "-i", "PATH=/usr/bin:/bin", "HOME=\(directory)", "TERM=tmux-256color", "LANG=C.UTF-8", "PS1=$ ",
            // No history file: bash writes it as it exits, which can be after
            // the test removed the folder, and leaves the folder behind.
            "HISTFILE=",
            "bash", "--norc", "--noprofile",
        ]
        var result = try await tmux(arguments)
        // The last session of another test may be closing the server at this
        // very moment ("server exited unexpectedly"): then start it again.
        for _ in 0..<5 where result.status != 0 && result.stderr.contains("server exited") {
            try await Task.sleep(for: .milliseconds(200))
            result = try await tmux(arguments)
        }
        guard result.status == 0 else { throw TmuxError(message: "tmux new-session failed: \(result.stderr)") }
        let pane = try await tmux(["display-message", "-p", "-t", session, "#{pane_pid}"])
        let leader = Int32(pane.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        if let leader { leaders.insert(leader) }
        return Tmux(session: session, folder: folder, leader: leader)
    }

    /// Types text literally (as `send-keys -l`), e.g. a command line or field value.
    func type(_ text: String) async throws {
        _ = try await Self.tmux(["send-keys", "-t", session, "-l", text])
    }

    /// Presses named keys: "Enter", "Tab", "Escape", "Down", "Space", "C-c", "q", ...
    func press(_ keys: String...) async throws {
        for key in keys {
            _ = try await Self.tmux(["send-keys", "-t", session, key])
            try await Task.sleep(for: .milliseconds(60))
        }
    }

    /// The screen with its colours and attributes, as SGR escape sequences.
    func styledScreen() async throws -> String {
        try await Self.tmux(["capture-pane", "-p", "-e", "-t", session]).stdout
    }

    func screen() async throws -> [String] {
        let result = try await Self.tmux(["capture-pane", "-p", "-t", session])
        return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The pane's title, which an OSC 0 or 2 sequence written to the pane sets.
    func title() async throws -> String {
        let result = try await Self.tmux(["display-message", "-p", "-t", session, "#{pane_title}"])
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    func resize(width: Int, height: Int) async throws {
        _ = try await Self.tmux(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    /// Polls the screen until `predicate` holds; fails with the last screen after `timeout`.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = .seconds(20), sourceLocation: SourceLocation = #_sourceLocation,
        _ predicate: ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var last: [String] = []
        while ContinuousClock.now < deadline {
            last = try await screen()
            if predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(150))
        }
        Issue.record(
            "timed out waiting for \(what); the screen was:\n\(last.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        throw TmuxError(message: "timed out waiting for \(what)")
    }

    /// Ends the session and waits (up to 5 s) until every process of its
    /// pane has exited: a hoist still closing its journal would otherwise
    /// write into the test's folder while the test removes it.
    func kill() async {
        _ = try? await Self.tmux(["kill-session", "-t", session])
        guard let leader else { return }
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, Self.processes(inSession: leader) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        Self.leaders.remove(leader)
    }

    /// The panes not killed yet. At exit (a test's deferred kill may not have
    /// run) the tests' tmux server goes, and what ran in its panes has up to
    /// 5 s to end before the test folders are removed.
    private static let leaders: LockedSet<Int32> = {
        atexit {
            _ = system("/usr/bin/tmux -L \(Tmux.socket) kill-server 2>/dev/null")
            unlink("/tmp/tmux-\(getuid())/\(Tmux.socket)")  // a server that was gone already can leave it
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline, Tmux.leaders.all.contains(where: Tmux.processes(inSession:)) {
                usleep(20_000)
            }
        }
        return LockedSet()
    }()

    /// Whether any process belongs to session `id` (the pane's shell leads one).
    private static func processes(inSession id: Int32) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return false }
        for name in names where name.first?.isNumber == true {
            // Field 6 of /proc/PID/stat (the session), the fourth after the closing parenthesis of the command.
            guard let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 3, Int32(fields[3]) == id { return true }
        }
        return false
    }
}

struct TmuxError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

extension Array where Element == String {
    var text: String { joined(separator: "\n") }
}
