import Foundation
import Receiver
import TestSupport
import Testing

/// Who may write files: no page of another site, and with `token` only who
/// carries it. Sent by curl, as a browser or a script would send them.
@Suite struct RequestGateTests {
    let files = TemporaryDirectory()

    @Test func aPageOfAnotherSiteCannotPostAForm() async throws {
        try await withReceiver { server in
            let hostile = try await Curl.run([
                "-H", "Origin: https://evil.example", "-F", "a=b", server.url + "/upload",
            ])
            #expect(hostile.status == 403)
            #expect(hostile.text.contains("--allow-origin https://evil.example"))
            // A name that a hostile page pointed at 127.0.0.1 is still another site.
            let rebound = try await Curl.run([
                "-H", "Origin: http://rebind.example:\(server.receiver.port)", "-F", "a=b", server.url + "/upload",
            ])
            #expect(rebound.status == 403)
            #expect(try await Curl.run(["-H", "Origin: null", "-d", "a=b", server.url + "/"]).status == 403)
            // Its own loopback origin, and no Origin at all (curl, scripts, Hoist), are fine.
            let own = try await Curl.run([
                "-H", "Origin: http://127.0.0.1:\(server.receiver.port)", "-F", "a=b", server.url + "/upload",
            ])
            #expect(own.status == 200)
            #expect(
                try await Curl.run(["-H", "Origin: http://localhost:3000", "-d", "a=b", server.url + "/"]).status == 200
            )
            #expect(try await Curl.run(["-F", "a=b", server.url + "/upload"]).status == 200)
            // A tus creation is a write too.
            let tus = try await Curl.run([
                "-X", "POST", "-H", "Origin: https://evil.example", "-H", "Tus-Resumable: 1.0.0", "-H",
                "Upload-Length: 3",
                server.url + "/files",
            ])
            #expect(tus.status == 403)
            #expect(server.savedFiles.isEmpty)
        }
        try await withReceiver({ $0.allowedOrigins = ["https://app.example"] }) { server in
            let allowed = try await Curl.run(["-H", "Origin: https://app.example", "-d", "a=b", server.url + "/"])
            #expect(allowed.status == 200)
            let other = try await Curl.run(["-H", "Origin: https://app.example.evil", "-d", "a=b", server.url + "/"])
            #expect(other.status == 403)
        }
    }

    @Test func aTokenIsRequiredWhenOneIsSet() async throws {
        let path = files.file("t.txt", Array("token".utf8))
        try await withReceiver({ $0.token = "s3cr3t-token" }) { server in
            let none = try await Curl.run(["-F", "f=@\(path)", server.url + "/upload"])
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate") == "Bearer")
            #expect(!none.text.contains("s3cr3t"))
            let wrong = try await Curl.run([
                "-H", "Authorization: Bearer s3cr3t-tokem", "-F", "f=@\(path)", server.url + "/upload",
            ])
            #expect(wrong.status == 401)
            #expect(server.savedFiles.isEmpty)
            let right = try await Curl.run([
                "-H", "Authorization: Bearer s3cr3t-token", "-F", "f=@\(path)", server.url + "/upload",
            ])
            #expect(right.status == 200)
            #expect(server.savedFiles == ["t.txt"])
        }
    }
}
