import FormData
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// Uploads over real TLS to the Receiver serving HTTPS with a self-signed
/// certificate made by openssl for the test; ALPN offers HTTP/2.
@Suite struct TLSUploadTests {
    /// A self-signed certificate for 127.0.0.1 and its key, as PEM files.
    static func certificate(in dir: TemporaryDirectory) async throws -> (certificate: String, key: String) {
        let certificate = dir.sub("cert.pem")
        let key = dir.sub("key.pem")
        let made = try await Subprocess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ], timeout: .seconds(30))
        try #require(made.status == 0, "openssl failed: \(String(decoding: made.stderr, as: UTF8.self))")
        return (certificate, key)
    }

    @Test func aFileGoesOverHTTP2WithTLSAndArrivesIntact() async throws {
        let dir = TemporaryDirectory()
        let pem = try await Self.certificate(in: dir)
        try await Harness.run(insecure: true, configure: { $0.tls = (pem.certificate, pem.key) }) { h in
            #expect(h.url.hasPrefix("https://127.0.0.1:"))
            let big = randomFile(h, "身份证 正面.jpg", size: 3_000_017, seed: 11)
            let form = MultipartForm(parts: [.text("user", "42"), .file("front", path: big.path)])
            let done = try await h.finish(try h.engine.add(UploadRequest(url: h.url, body: .multipart(form))))
            #expect(done.state == .succeeded)
            #expect(done.response?.version == "HTTP/2", "ALPN chose HTTP/2")
            let upload = try received(done)
            #expect(upload.fields.map(\.value) == ["42"])
            #expect(upload.files.first?.filename == "身份证 正面.jpg")
            #expect(upload.files.first?.sha256 == sha256(big.bytes))
            #expect(done.progress.bytesSent == done.progress.totalBytes)
            expectMonotonicProgress(h.events.snapshots(of: done.id))
        }
    }

    @Test func anUntrustedCertificateIsRefusedWithoutInsecure() async throws {
        let dir = TemporaryDirectory()
        let pem = try await Self.certificate(in: dir)
        try await Harness.run(configure: { $0.tls = (pem.certificate, pem.key) }) { h in
            let done = try await h.finish(
                try h.engine.add(UploadRequest(url: h.url, body: .json(Array("{}".utf8)), retry: .none)))
            guard case .failed(.tls(let reason)) = done.state else {
                Issue.record("expected a TLS failure, got \(done.state)")
                return
            }
            #expect(reason.contains("not trusted"), "\(reason)")
            #expect(h.receiver.requestCount == 0, "nothing was sent")
        }
    }
}
