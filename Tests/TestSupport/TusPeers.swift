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
    private var process: Subprocess

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
        let process = try serveResumableUpload(port: 0, directory: directory, arguments)
        let port = try await Subprocess.listeningPort(of: process.pid)
        return TusPeer(port: port, directory: directory, path: "/files", process: process)
    }

    private static func serveResumableUpload(port: Int, directory: TemporaryDirectory, _ arguments: [String]) throws
        -> Subprocess
    {
        try Subprocess(
            "/usr/bin/env",
            [
                "resumable-upload", "serve", "--host", "127.0.0.1", "--port", String(port), "--upload-dir",
                directory.path, "--db-path", directory.path + "/db", "--log-level", "WARNING",
            ] + arguments, timeout: .seconds(1800))
    }

    /// resumable-upload started again on the same port, over what it kept
    /// (an outage: a killed server back after a while).
    public func restartResumableUpload() async throws {
        process = try Self.serveResumableUpload(port: port, directory: directory, [])
        _ = try await Subprocess.listeningPort(of: process.pid)
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
        let port = try await Subprocess.listeningPort(of: process.pid)
        return TusPeer(port: port, directory: directory, path: "/uploads", process: process)
    }

    public func stop() {
        kill(-process.pid, SIGKILL)
        kill(process.pid, SIGKILL)
    }

    /// resumable-upload's SQLite files. Named exactly: an upload's name is
    /// its hex id, and one in 256 starts with "db" (a prefix test once
    /// hid such an upload and failed a run).
    private static let bookkeeping: Set<String> = ["db", "db-journal", "db-wal", "db-shm"]

    /// The files the server holds, by name, with their bytes (its
    /// bookkeeping files left out).
    public func storedFiles(where keep: (String) -> Bool = { _ in true }) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let name = enumerator?.nextObject() as? String {
            let path = directory.path + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !Self.bookkeeping.contains(name), keep(name), let data = FileManager.default.contents(atPath: path)
            else { continue }
            found[name] = Array(data)
        }
        return found
    }
}
