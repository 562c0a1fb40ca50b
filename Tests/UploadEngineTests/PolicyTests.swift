import FormData
import Testing

@testable import UploadEngine

@Suite struct PolicyTests {
    @Test func successRuleNeeds2xxAndTheExpectation() {
        let rule = SuccessRule(expectations: [.init(path: "RETCODE", value: "0000")], messagePath: "RETMSG")
        let ok = JSONValue.object([.init("RETCODE", .string("0000")), .init("RETMSG", .string("fine"))])
        let bad = JSONValue.object([.init("RETCODE", .string("0001")), .init("RETMSG", .string("blurry photo"))])
        #expect(rule.evaluate(status: 200, json: ok) == nil)
        let failure = rule.evaluate(status: 200, json: bad)
        #expect(
            failure
                == .expectationFailed(
                    path: "RETCODE", expected: "0000", actual: "0001", message: "blurry photo", reason: nil))
        #expect(failure?.serverMessage == "blurry photo")
        #expect(failure?.description == #"expected RETCODE = "0000", got "0001": blurry photo"#)
        #expect(rule.evaluate(status: 500, json: bad) == .httpStatus(500, message: "blurry photo"))
        #expect(
            rule.evaluate(status: 200, json: nil)
                == .expectationFailed(
                    path: "RETCODE", expected: "0000", actual: nil, message: nil, reason: "the response is not JSON"))
        #expect(SuccessRule().evaluate(status: 204, json: nil) == nil)
        #expect(SuccessRule().evaluate(status: 302, json: nil) == .httpStatus(302, message: nil))
        let numeric = SuccessRule(expectations: [.init(path: "code", value: "0")])
        #expect(numeric.evaluate(status: 200, json: .object([.init("code", .number("0"))])) == nil)
    }

    @Test func retryOnlyWhatIsWorthRetrying() {
        let policy = RetryPolicy()
        for status in [408, 429, 500, 502, 503, 504] { #expect(policy.isRetryable(.httpStatus(status, message: nil))) }
        for status in [400, 401, 403, 404, 413, 422, 501] {
            #expect(!policy.isRetryable(.httpStatus(status, message: nil)))
        }
        #expect(policy.isRetryable(.connectionFailed("refused")))
        #expect(!policy.isRetryable(.unknownHost("no-such-host.invalid")))
        #expect(policy.isRetryable(.connectionLost("reset")))
        #expect(policy.isRetryable(.idleTimeout(.seconds(1))))
        #expect(policy.isRetryable(.connectTimeout(.seconds(1))))
        #expect(!policy.isRetryable(.input(.fileNotFound(field: "f", path: "p"))))
        #expect(
            !policy.isRetryable(.expectationFailed(path: "a", expected: "b", actual: nil, message: nil, reason: nil)))
        #expect(!policy.isRetryable(.answeredEarly(status: 200, sent: 1, total: 2)))
    }

    @Test func backoffGrowsWithJitterAndStopsAtTheLimit() {
        let policy = RetryPolicy(maxRetries: 3, baseDelay: .seconds(1), maxDelay: .seconds(3))
        let failure = UploadFailure.connectionLost("reset")
        #expect(policy.delay(afterAttempt: 1, failure: failure, retryAfter: nil, jitter: 0) == .milliseconds(500))
        #expect(policy.delay(afterAttempt: 1, failure: failure, retryAfter: nil, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterAttempt: 2, failure: failure, retryAfter: nil, jitter: 1) == .seconds(2))
        #expect(
            policy.delay(afterAttempt: 3, failure: failure, retryAfter: nil, jitter: 1) == .seconds(3),
            "capped at maxDelay")
        #expect(
            policy.delay(afterAttempt: 4, failure: failure, retryAfter: nil, jitter: 1) == nil, "3 retries by default")
        #expect(
            policy.delay(afterAttempt: 1, failure: .httpStatus(503, message: nil), retryAfter: .seconds(7), jitter: 0.3)
                == .seconds(7))
        #expect(
            policy.delay(
                afterAttempt: 1, failure: .httpStatus(503, message: nil), retryAfter: .seconds(9999), jitter: 0)
                == .seconds(300))
        #expect(RetryPolicy.none.delay(afterAttempt: 1, failure: failure, retryAfter: nil, jitter: 0) == nil)
    }

    /// A resumable transfer waits out an unreachable or unavailable server
    /// for `outageFactor` times the retries; a form's budget stays as it is,
    /// and a refusal that is not an outage (a 400) is not retried at all.
    @Test func anOutageIsWaitedOutLongerOnlyWhenNothingIsLost() {
        let policy = RetryPolicy(maxRetries: 3)
        let refused = UploadFailure.connectionFailed("connection refused")
        func delay(_ attempt: Int, _ failure: UploadFailure, resumable: Bool) -> Duration? {
            policy.delay(afterAttempt: attempt, failure: failure, retryAfter: nil, jitter: 1, resumable: resumable)
        }
        #expect(delay(4, refused, resumable: false) == nil)
        #expect(delay(4, refused, resumable: true) == .seconds(4))
        #expect(delay(12, refused, resumable: true) == .seconds(30), "capped")
        #expect(delay(13, refused, resumable: true) == nil)
        #expect(delay(5, .httpStatus(503, message: nil), resumable: true) != nil)
        #expect(delay(5, .httpStatus(500, message: nil), resumable: true) == nil)
        #expect(delay(1, .httpStatus(400, message: nil), resumable: true) == nil)
        // Three and a half minutes of waits in all, as the docs say.
        let waited = (1...12).compactMap { delay($0, refused, resumable: true) }.reduce(Duration.zero, +)
        #expect(waited >= .seconds(180) && waited <= .seconds(240), "\(waited)")
    }

    @Test func proxyFromEnvironment() {
        let proxies = ProxySettings.fromEnvironment([
            "http_proxy": "http://user:pw@proxy.local:3128/", "HTTPS_PROXY": "secure.local:8443",
            "no_proxy": "localhost, .internal,127.0.0.1",
        ])
        #expect(proxies.server(scheme: "http", host: "example.com") == .init(host: "proxy.local", port: 3128))
        #expect(proxies.server(scheme: "https", host: "example.com") == .init(host: "secure.local", port: 8443))
        #expect(proxies.server(scheme: "http", host: "localhost") == nil)
        #expect(proxies.server(scheme: "http", host: "api.internal") == nil)
        #expect(proxies.server(scheme: "http", host: "127.0.0.1") == nil)
        #expect(ProxySettings.fromEnvironment([:]).server(scheme: "https", host: "x") == nil)
    }

    @Test func progressMeterSmoothsAndEstimates() {
        var meter = ProgressMeter()
        let start = ContinuousClock.now
        meter.reset(at: start)
        for step in 1...20 {
            meter.record(bytes: Int64(step) * 1_000_000, at: start + .milliseconds(step * 100))
        }
        #expect(abs(meter.bytesPerSecond - 10_000_000) < 1)
        #expect(meter.eta(sent: 20_000_000, total: 30_000_000) == .seconds(1))
        #expect(meter.eta(sent: 1, total: nil) == nil)
    }

    /// The first write lands in the socket's buffer at once (here 500 KB
    /// in 2 ms), then the bytes leave at the limit's 10 MB/s: a second in,
    /// speed and ETA are within 5% of the truth, and a slower rate later is followed.
    @Test func progressMeterIsNotMisledByTheFirstBurst() {
        var meter = ProgressMeter()
        let start = ContinuousClock.now
        meter.reset(at: start)
        meter.record(bytes: 500_000, at: start + .milliseconds(2))
        var sent: Int64 = 500_000
        for step in 1...50 {
            sent = 500_000 + Int64(step) * 200_000
            meter.record(bytes: sent, at: start + .milliseconds(2 + step * 20))
        }
        #expect(abs(meter.bytesPerSecond - 10_000_000) < 500_000, "\(meter.bytesPerSecond)")
        let eta = ProgressMeter.seconds(meter.eta(sent: sent, total: sent + 40_000_000)!)
        #expect(eta > 3.8 && eta < 4.2, "\(eta) s for 40 MB at 10 MB/s")
        for step in 1...200 {
            meter.record(bytes: sent + Int64(step) * 100_000, at: start + .milliseconds(1_002 + step * 20))
        }
        #expect(meter.bytesPerSecond > 5_000_000 && meter.bytesPerSecond < 6_000_000, "\(meter.bytesPerSecond)")
    }

    @Test func responseContent() {
        #expect(ResponseContentDecoder.decode([], contentType: "application/json", truncated: false) == .empty)
        #expect(
            ResponseContentDecoder.decode(Array(#"{"a":1}"#.utf8), contentType: "text/plain", truncated: false)
                == .json(.object([.init("a", .number("1"))])))
        #expect(
            ResponseContentDecoder.decode(
                Array(#"{"broken": "#.utf8), contentType: "application/json", truncated: false)
                == .invalidJSON(text: #"{"broken": "#, error: "unexpected end of input at byte 11"))
        #expect(
            ResponseContentDecoder.decode(Array("hello".utf8), contentType: "text/plain", truncated: false)
                == .text("hello"))
        #expect(
            ResponseContentDecoder.decode([0, 1, 2, 0xFF], contentType: "image/png", truncated: false)
                == .binary(summary: "4 bytes of image/png"))
    }

    @Test func progressFractionNeverPassesOne() {
        #expect(UploadProgress(bytesSent: 5, totalBytes: 4).fraction == 1)
        #expect(UploadProgress(bytesSent: 1, totalBytes: 4).fraction == 0.25)
        #expect(UploadProgress(bytesSent: 1, totalBytes: nil).fraction == nil)
    }

    @Test func dedupeKeyIgnoresTheBoundaryAndTheLabel() {
        let a = UploadRequest(url: "http://x/", body: .multipart(MultipartForm(parts: [.text("a", "1")])))
        var b = UploadRequest(url: "http://x/", body: .multipart(MultipartForm(parts: [.text("a", "1")])))
        func same(_ x: UploadRequest, _ y: UploadRequest) -> Bool {
            DedupeKey.same(x, y) && DedupeKey.hash(x) == DedupeKey.hash(y)
        }
        #expect(a != b, "random boundaries differ")
        #expect(same(a, b))
        b.label = "shown name"
        #expect(same(a, b), "the label is for lists only")
        let c = UploadRequest(url: "http://x/", body: .multipart(MultipartForm(parts: [.text("a", "2")])))
        #expect(!DedupeKey.same(a, c))
        var d = a
        d.retry = .none
        #expect(!DedupeKey.same(a, d), "other policies make another upload")
        d.retry = a.retry
        #expect(same(a, d), "policies are compared by value, not by their shared box")
    }

    @Test func invalidURLs() {
        #expect(throws: UploadFailure.invalidURL("ftp://x/", reason: "the scheme must be http or https")) {
            try HTTPTransport.validate(url: "ftp://x/")
        }
        #expect(throws: UploadFailure.self) { try HTTPTransport.validate(url: "not a url") }
        #expect(throws: UploadFailure.invalidURL("http:///path", reason: "it has no host")) {
            try HTTPTransport.validate(url: "http:///path")
        }
    }

    @Test func filesAreMappedOnlyForAPlaintextServerOnThisMachine() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "api.localhost", "::1", "[::1]", "LOCALHOST"] {
            #expect(FileSending.automatic.method(scheme: "http", host: host, proxied: false) == .mapped, "\(host)")
            #expect(
                FileSending.automatic.method(scheme: "http", host: host, proxied: true) == .sendfile,
                "\(host) through a proxy")
            #expect(
                FileSending.automatic.method(scheme: "https", host: host, proxied: false) == .threadPool,
                "\(host) over TLS")
            #expect(FileSending.sendfile.method(scheme: "http", host: host, proxied: false) == .sendfile)
        }
        for host in [
            "10.0.0.1", "128.0.0.1", "127.0.0.1.example.com", "localhost.example.com", "example.com", "::2",
            "1270.0.0.1",
        ] {
            #expect(FileSending.automatic.method(scheme: "http", host: host, proxied: false) == .sendfile, "\(host)")
        }
        #expect(FileSending.threadPool.method(scheme: "http", host: "127.0.0.1", proxied: false) == .threadPool)
    }
}
