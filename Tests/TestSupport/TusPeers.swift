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
        let port = try freePort()
        let process = try Subprocess(
            "/usr/bin/env",
            [
                "resumable-upload", "serve", "--host", "127.0.0.1", "--port", String(port), "--upload-dir",
                directory.path, "--db-path", directory.path + "/db", "--log-level", "WARNING",
            ] + arguments, timeout: .seconds(1800))
        let peer = TusPeer(port: port, directory: directory, path: "/files", process: process)
        try await peer.waitUntilListening()
        return peer
    }

    /// aiohttp-tus: core, creation and termination only; `maxBody` is
    /// aiohttp's `client_max_size` (a larger PATCH gets 413).
    public static func aiohttpTus(maxBody: Int = 1 << 20) async throws -> TusPeer {
        let directory = TemporaryDirectory()
        let port = try freePort()
        let script = """
            from pathlib import Path
            from aiohttp import web
            from aiohttp_tus import setup_tus
            app = setup_tus(web.Application(client_max_size=\(maxBody)), upload_path=Path(\
            \(String(reflecting: directory.path))), upload_url="/uploads")
            web.run_app(app, host="127.0.0.1", port=\(port), print=None)
            """
        let process = try Subprocess("/usr/bin/env", ["python3", "-c", script], timeout: .seconds(1800))
        let peer = TusPeer(port: port, directory: directory, path: "/uploads", process: process)
        try await peer.waitUntilListening()
        return peer
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

    private func waitUntilListening() async throws {
        for _ in 0..<300 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(fd)
            if connected == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SubprocessError(message: "the tus server on port \(port) did not start within 30 s")
    }

    /// Ports handed out in this process: suites run in parallel, and the
    /// kernel may give the port of a probe just closed to the next probe, so
    /// two servers could be told the same port and one test would talk to
    /// the other's server.
    private nonisolated(unsafe) static var issued: Set<Int> = []
    private static let issuedLock = NSLock()

    private static func freePort() throws -> Int {
        for _ in 0..<100 {
            let port = try probePort()
            if issuedLock.withLock({ issued.insert(port).inserted }) { return port }
        }
        throw SubprocessError(message: "no free port that this process has not handed out already")
    }

    private static func probePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else { throw SubprocessError(message: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
