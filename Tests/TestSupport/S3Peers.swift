import Foundation
import Glibc

/// `moto_server` (PyPI `moto[server]`), an S3 API no one here wrote,
/// started on a free loopback port for one test; boto3 checks what it
/// stored. See ../shared/PEERS.md for its quirks.
public final class MotoPeer: @unchecked Sendable {
    public let endpoint: String
    private let process: Subprocess
    private let log: TemporaryDirectory
    /// boto3's key: moto's defaults, or the IAM user's once signatures are checked.
    private var key = (id: "testing", secret: "testing")

    private init(endpoint: String, process: Subprocess, log: TemporaryDirectory) {
        self.endpoint = endpoint
        self.process = process
        self.log = log
    }

    deinit {
        kill(-process.pid, SIGKILL)
        kill(process.pid, SIGKILL)
    }

    public static func start() async throws -> MotoPeer {
        // Its request log (stderr) goes to a file the tests read; `exec` keeps the pid moto's.
        let log = TemporaryDirectory()
        let process = try Subprocess(
            "/bin/sh", ["-c", "exec moto_server -H 127.0.0.1 -p 0 2>\"$0\"", log.path + "/requests.log"],
            timeout: .seconds(1800))
        let port = try await Subprocess.listeningPort(of: process.pid)
        let peer = MotoPeer(endpoint: "http://127.0.0.1:\(port)", process: process, log: log)
        // Listening is not yet answering: wait for its API.
        for _ in 0..<100 {
            if (try? await peer.python("import urllib.request; urllib.request.urlopen(ENDPOINT + '/moto-api/')")) != nil
            {
                return peer
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SubprocessError(message: "moto_server on port \(port) did not answer within 10 s")
    }

    /// boto3 against this moto, with the key that is valid now.
    public var reader: S3Reader { S3Reader(endpoint: endpoint, key: key.id, secret: key.secret) }

    @discardableResult
    public func python(_ script: String) async throws -> String { try await reader.python(script) }

    public func createBucket(_ name: String) async throws { try await reader.createBucket(name) }

    public func object(_ bucket: String, _ key: String) async throws -> (size: Int, sha256: String, etag: String) {
        try await reader.object(bucket, key)
    }

    public func crc32(_ bucket: String, _ key: String) async throws -> (stored: String?, computed: String) {
        try await reader.crc32(bucket, key)
    }

    public func openUploads(_ bucket: String) async throws -> Int { try await reader.openUploads(bucket) }

    /// The request lines moto logged so far that contain `text`, e.g.
    /// `"PUT /photos/big.bin?partNumber=`: `UploadPart`s of that object.
    public func requests(containing text: String) -> [String] {
        let lines = (try? String(contentsOfFile: log.path + "/requests.log", encoding: .utf8)) ?? ""
        return lines.split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// The end of moto's log (requests and any traceback), for a failure message.
    public func logTail(_ count: Int = 25) -> String {
        let lines = (try? String(contentsOfFile: log.path + "/requests.log", encoding: .utf8)) ?? ""
        return "moto's log ends:\n" + lines.split(separator: "\n").suffix(count).joined(separator: "\n")
    }

    /// Turns signature checks on with an IAM user allowed `s3:*`; returns its key and secret.
    public func requireSignatures() async throws -> (key: String, secret: String) {
        let out = try await python(
            """
            import urllib.request
            iam = boto3.client("iam", endpoint_url=ENDPOINT, region_name="us-east-1",
                               aws_access_key_id="testing", aws_secret_access_key="testing")
            iam.create_user(UserName="hoist")
            policy = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
            arn = iam.create_policy(PolicyName="s3-all", PolicyDocument=policy)["Policy"]["Arn"]
            iam.attach_user_policy(UserName="hoist", PolicyArn=arn)
            key = iam.create_access_key(UserName="hoist")["AccessKey"]
            urllib.request.urlopen(urllib.request.Request(ENDPOINT + "/moto-api/reset-auth", data=b"0", method="POST",
                headers={"Content-Type": "text/plain"}))
            print(json.dumps([key["AccessKeyId"], key["SecretAccessKey"]]))
            """)
        let fields = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String]
        key = (fields[0], fields[1])
        return (fields[0], fields[1])
    }
}

/// A TCP proxy in front of moto (which answers one request per connection,
/// then closes it). It counts the requests on the wire at once, and can cut
/// the first request whose head contains a text (closing the connection
/// once that head is in, forwarding nothing).
public final class MotoProxy: @unchecked Sendable {
    private let proxy: ProxyProcess
    public var endpoint: String { proxy.endpoint }

    /// A request counts from its head until the last byte of its answer
    /// (by Content-Length) is about to be relayed: the client cannot start
    /// another before that, so the count has no race.
    static let script = #"""
        import socket, sys, threading
        target, out, cut = int(sys.argv[1]), sys.argv[2] + "/max", sys.argv[3].encode()
        lock = threading.Lock()
        state = {"now": 0, "max": 0, "cut": not cut}
        def change(delta):
            with lock:
                state["now"] += delta
                if state["now"] > state["max"]:
                    state["max"] = state["now"]
                    with open(out, "w") as f: f.write(str(state["max"]))
        def forward(a, b):
            try:
                while True:
                    d = a.recv(1 << 16)
                    if not d: break
                    b.sendall(d)
            except OSError: pass
            try: b.shutdown(socket.SHUT_WR)
            except OSError: pass
        def answer(upstream, client):
            data, counted = b"", True
            try:
                while True:
                    d = upstream.recv(1 << 16)
                    if not d: break
                    data += d
                    if counted and b"\r\n\r\n" in data:
                        head, body = data.split(b"\r\n\r\n", 1)
                        length = [int(l.split(b":")[1]) for l in head.split(b"\r\n")
                                  if l.lower().startswith(b"content-length:")]
                        if length and len(body) >= length[0]:
                            counted = False
                            change(-1)
                    client.sendall(d)
            except OSError: pass
            if counted: change(-1)
            client.close(); upstream.close()
        def serve(client):
            head = b""
            while b"\r\n\r\n" not in head:
                d = client.recv(1 << 16)
                if not d: return client.close()
                head += d
            with lock:
                cutting = not state["cut"] and cut in head.split(b"\r\n\r\n")[0]
                if cutting: state["cut"] = True
            if cutting: return client.close()
            change(1)
            upstream = socket.create_connection(("127.0.0.1", target))
            upstream.sendall(head)
            threading.Thread(target=forward, args=(client, upstream), daemon=True).start()
            answer(upstream, client)
        s = socket.socket()
        s.bind(("127.0.0.1", 0)); s.listen(128)
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """#

    private init(_ proxy: ProxyProcess) {
        self.proxy = proxy
    }

    /// `cutting`: the text whose first request is cut (none when nil).
    public static func start(before endpoint: String, cutting text: String? = nil) async throws -> MotoProxy {
        MotoProxy(try await ProxyProcess.start(script, before: endpoint, arguments: [text ?? ""]))
    }

    /// The most requests that were on the wire at once.
    public var mostAtOnce: Int {
        Int(proxy.read("max")) ?? 0
    }
}
