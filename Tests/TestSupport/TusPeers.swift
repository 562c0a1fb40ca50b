import Foundation
import Glibc

/// A tus server no one here wrote, from PyPI, started on a free loopback
/// port for one test (see ../shared/PEERS.md for their quirks).
public final class TusPeer: @unchecked Sendable {
    public let port: Int
    /// Where the server keeps what it received.
    public let directory: TemporaryDirectory
    /// The creation endpoint.
    public let creationURL: String
    private let process: Subprocess

    private init(port: Int, directory: TemporaryDirectory, path: String, process: Subprocess) {
        self.port = port
        self.directory = directory
        self.creationURL = "http://127.0.0.1:\(port)\(path)"
        self.process = process
    }

    deinit { stop() }

    /// `resumable-upload serve`: every extension, relative `Location`s.
    public static func resumableUpload(_ arguments: [String] = []) async throws -> TusPeer {
        let directory = TemporaryDirectory()
        let process = try Subprocess(
            "/usr/bin/env",
            [
                "resumable-upload", "serve", "--host", "127.0.0.1", "--port", "0", "--upload-dir",
                directory.path, "--db-path", directory.path + "/db", "--log-level", "WARNING",
            ] + arguments, timeout: .seconds(1800))
        let port = try await listeningPort(of: process.pid)
        return TusPeer(port: port, directory: directory, path: "/files", process: process)
    }

    /// aiohttp-tus: core, creation and termination only; `maxBody` is
    /// aiohttp's `client_max_size` (a larger PATCH gets 413).
    public static func aiohttpTus(maxBody: Int = 1 << 20) async throws -> TusPeer {
        let directory = TemporaryDirectory()
        let script = """
            from pathlib import Path
            from aiohttp import web
            from aiohttp_tus import setup_tus
            app = setup_tus(web.Application(client_max_size=\(maxBody)), upload_path=Path(\
            \(String(reflecting: directory.path))), upload_url="/uploads")
            web.run_app(app, host="127.0.0.1", port=0, print=None)
            """
        let process = try Subprocess("/usr/bin/env", ["python3", "-c", script], timeout: .seconds(1800))
        let port = try await listeningPort(of: process.pid)
        return TusPeer(port: port, directory: directory, path: "/uploads", process: process)
    }

    public func stop() {
        kill(-process.pid, SIGKILL)
        kill(process.pid, SIGKILL)
    }

    /// The files the server holds, by name, with their bytes (its
    /// bookkeeping files left out).
    public func storedFiles(where keep: (String) -> Bool = { _ in true }) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let name = enumerator?.nextObject() as? String {
            let path = directory.path + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !name.hasPrefix("db"), keep(name), let data = FileManager.default.contents(atPath: path)
            else { continue }
            found[name] = Array(data)
        }
        return found
    }

    /// The port the server process itself is listening on, read from
    /// /proc. The server binds port 0: a port probed here and handed over
    /// could be taken by a receiver of a test running alongside before
    /// Python starts, and the test would then talk to that receiver.
    private static func listeningPort(of pid: pid_t) async throws -> Int {
        for _ in 0..<300 {
            let sockets = socketInodes(of: pid)
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                for line in (try? String(contentsOfFile: table, encoding: .utf8))?.split(separator: "\n").dropFirst()
                    ?? []
                {
                    // sl local_address rem_address st ... inode
                    let fields = line.split(separator: " ")
                    guard fields.count > 9, fields[3] == "0A", sockets.contains(String(fields[9])),
                        let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                    else { continue }
                    return port
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SubprocessError(message: "the tus server (pid \(pid)) did not listen within 30 s")
    }

    private static func socketInodes(of pid: pid_t) -> Set<String> {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(
            names.compactMap { name in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
    }
}
