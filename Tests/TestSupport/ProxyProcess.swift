import Foundation
import Glibc

/// A TCP proxy written in Python for the tests, in front of a server on
/// this machine: it listens on a loopback port of its own choosing and
/// writes what it counted into `log`. Killed with this object.
public final class ProxyProcess: @unchecked Sendable {
    public let endpoint: String
    /// The folder the script writes its counts into (its second argument).
    public let log: TemporaryDirectory
    private let process: Subprocess

    private init(endpoint: String, process: Subprocess, log: TemporaryDirectory) {
        self.endpoint = endpoint
        self.process = process
        self.log = log
    }

    deinit {
        kill(process.pid, SIGKILL)
    }

    /// Runs `script` as `python3 -c script TARGET_PORT LOG_FOLDER arguments...`.
    public static func start(_ script: String, before endpoint: String, arguments: [String]) async throws
        -> ProxyProcess
    {
        guard let port = URL(string: endpoint)?.port else { throw SubprocessError(message: "no port in \(endpoint)") }
        let log = TemporaryDirectory()
        let process = try Subprocess(
            "/usr/bin/env", ["python3", "-c", script, String(port), log.path] + arguments, timeout: .seconds(1800))
        let listening = try await Subprocess.listeningPort(of: process.pid)
        return ProxyProcess(endpoint: "http://127.0.0.1:\(listening)", process: process, log: log)
    }

    /// What the script wrote into `name` in its folder.
    public func read(_ name: String) -> String {
        (try? String(contentsOfFile: log.path + "/" + name, encoding: .utf8)) ?? ""
    }
}
