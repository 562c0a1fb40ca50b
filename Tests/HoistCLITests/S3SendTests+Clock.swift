import Foundation
import Glibc
import TestSupport
import Testing

/// A clock that differs from the server's: corrected from its answer, or named when it cannot be.
extension S3SendTests {
    /// A clock check in front of moto (which never checks the request time):
    /// a request signed more than 15 minutes from this machine's clock is
    /// refused as AWS refuses it, `RequestTimeTooSkewed`, with the times in
    /// the XML (`dates`) or only in the `Date` header (`header`); every other
    /// request goes on to moto as it came; `always` acts a server whose clock
    /// runs away, an hour ahead of whatever time is signed. Each refusal is a
    /// line in `refused`.
    static let clockCheck = #"""
        import http.client, http.server, sys, time, email.utils, datetime
        upstream, mode, refused = sys.argv[1], sys.argv[2], sys.argv[3]
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def handle_any(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                stamp = self.headers.get("X-Amz-Date", "")
                signed = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
                now = datetime.datetime.now(datetime.timezone.utc)
                if mode == "always": now = signed + datetime.timedelta(hours=1)
                if abs((now - signed).total_seconds()) > 900:
                    open(refused, "a").write(self.command + " " + self.path + "\n")
                    times = "" if mode == "header" else (
                        "<RequestTime>%s</RequestTime><ServerTime>%s</ServerTime>" % (stamp, now.strftime("%Y-%m-%dT%H:%M:%SZ")))
                    answer = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>RequestTimeTooSkewed</Code>"
                        "<Message>The difference between the request time and the current time is too large.</Message>"
                        + times + "<MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds></Error>").encode()
                    self.send_response(403)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                    return
                connection = http.client.HTTPConnection(upstream)
                connection.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
                for name, value in self.headers.items(): connection.putheader(name, value)
                connection.endheaders(body)
                response = connection.getresponse()
                data = response.read()
                self.send_response(response.status)
                for name, value in response.getheaders():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = handle_any
            def log_message(self, *args): pass
        http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler).serve_forever()
        """#

    /// A machine an hour behind the server (`HOIST_S3_CLOCK_OFFSET=-3600`):
    /// the first request is refused as skewed, the engine learns the
    /// server's clock from the answer and signs by it from then on.
    @Test(arguments: ["dates", "header"])
    func aSkewedClockIsCorrectedFromTheServersAnswer(_ mode: String) async throws {
        let (moto, environment) = try await moto()
        let refused = files.sub("refused-\(mode).log")
        let check = try Subprocess(
            "/usr/bin/env",
            ["python3", "-c", Self.clockCheck, String(moto.endpoint.dropFirst("http://".count)), mode, refused],
            timeout: .seconds(300))
        defer { kill(check.pid, SIGKILL) }
        let proxy = "http://127.0.0.1:\(try await Subprocess.listeningPort(of: check.pid))"
        var skewed = environment
        skewed["AWS_ENDPOINT_URL"] = proxy
        skewed["HOIST_S3_CLOCK_OFFSET"] = "-3600"
        let small = randomFile("small.jpg", 100_000, seed: 7)
        let large = randomFile("large.bin", 11 << 20, seed: 8)
        let result = try await hoist(
            [
                "send", "s3://photos/clock/", "-T", small.path, "-T", large.path, "--part-size", "5M", "--retries", "0",
                "--concurrency", "1", "--json", "--no-history", "--no-journal",
            ], environment: skewed)
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        #expect(try await moto.object("photos", "clock/small.jpg").sha256 == small.sha)
        let big = try await moto.object("photos", "clock/large.bin")
        #expect(big.sha256 == large.sha && big.etag.hasSuffix("-3\""))
        let refusals = ((try? String(contentsOfFile: refused, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(refusals.count == 1, "one refusal teaches the clock to every later request: \(refusals)")

    }

    /// A server still refusing once its clock was learnt: one correction, no
    /// loop, and the error names the difference.
    @Test func aClockThatCannotBeMatchedFailsNamingTheDifference() async throws {
        let (moto, environment) = try await moto()
        let refused = files.sub("refused-always.log")
        let check = try Subprocess(
            "/usr/bin/env",
            ["python3", "-c", Self.clockCheck, String(moto.endpoint.dropFirst("http://".count)), "always", refused],
            timeout: .seconds(300))
        defer { kill(check.pid, SIGKILL) }
        var skewed = environment
        skewed["AWS_ENDPOINT_URL"] = "http://127.0.0.1:\(try await Subprocess.listeningPort(of: check.pid))"
        let file = randomFile("x.jpg", 1000, seed: 9)
        let result = try await hoist(
            ["send", "s3://photos/x.jpg", "-T", file.path, "--retries", "0", "--no-history", "--no-journal"],
            environment: skewed)
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("RequestTimeTooSkewed")
                && result.stderr.contains("(the server's clock is 3600 s ahead of this machine's)"), "\(result.stderr)")
        let refusals = ((try? String(contentsOfFile: refused, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(refusals.count == 2, "the first, and the one signed by the learnt clock: \(refusals)")
    }
}
