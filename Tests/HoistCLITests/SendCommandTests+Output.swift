import Foundation
import Receiver
import TestSupport
import Testing

/// What `hoist send` prints: the JSON line, the body, a failure's message, and `-v`'s trace.
extension SendCommandTests {
    @Test func jsonLineHasEveryField() async throws {
        try await withReceiver { receiver, _ in
            let result = try await hoist(["send", receiver.baseURL + "/upload?reply=text", "--json", "-F", "a=b"])
            #expect(result.status == 0)
            let line = try jsonObject(try #require(result.stdoutLines.first))
            for key in [
                "id", "url", "ok", "status", "bytes_sent", "bytes_total", "duration_ms", "attempts", "error", "json",
                "body",
            ] {
                #expect(line[key] != nil, "missing \(key)")
            }
            #expect(line["json"] is NSNull)
            #expect(line["body"] as? String == "hello from hoist receiver")
            #expect(line["error"] is NSNull)
        }
    }

    @Test func bodyIsPrintedAsCurlDoes() async throws {
        try await withReceiver { receiver, _ in
            let result = try await hoist(["send", receiver.baseURL + "/upload?reply=text", "-F", "a=b"])
            #expect(result.status == 0)
            #expect(result.stdout == "hello from hoist receiver")
        }
    }

    @Test func failedUploadExitsOneWithTheServerMessage() async throws {
        try await withReceiver { receiver, _ in
            let reply = #"{"RETCODE":"0001","RETMSG":"photo is blurry"}"#.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            let result = try await hoist([
                "send", receiver.baseURL + "/upload?json=" + reply, "-F", "a=b", "--expect", "RETCODE=0000",
                "--message-path", "RETMSG",
            ])
            #expect(result.status == 1)
            #expect(result.stderr.contains(#"expected RETCODE = "0000", got "0001": photo is blurry"#))
            let refused = try await hoist(["send", "http://127.0.0.1:9/upload", "-F", "a=b", "--retries", "0"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("cannot connect") && !refused.stderr.contains("attempts"))
            let twice = try await hoist(["send", "http://127.0.0.1:9/upload", "-F", "a=b", "--retries", "1"])
            #expect(twice.stderr.contains("connection refused (after 2 attempts)"), "\(twice.stderr)")
            // A name that does not resolve (.invalid never does) is said so, not as NIO's error type,
            // and at once: trying it again would not change it.
            let unknown = try await hoist(["send", "http://no-such-host.invalid/up", "-F", "a=b"])
            #expect(unknown.status == 1)
            #expect(!unknown.stderr.contains("attempts"), "\(unknown.stderr)")
            #expect(
                unknown.stderr.contains(
                    "cannot connect: no-such-host.invalid: no such host (its name did not resolve; check the URL)")
                    && !unknown.stderr.contains("SocketAddressError"), "\(unknown.stderr)")
        }
    }

    @Test func secretsAreMaskedInVerboseOutput() async throws {
        try await withReceiver { receiver, _ in
            let result = try await hoist([
                "send", receiver.baseURL.replacingOccurrences(of: "http://", with: "http://me:hunter2@") + "/upload",
                "-v", "-s",
                "-u", "alice:s3cret-pw", "-H", "Cookie: session=abcdef", "-H", "X-Plain: visible",
                "-F", "password=p4ss", "-F", "pin=1234", "--secret", "pin", "-F", "name=Bob",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            for secret in ["hunter2", "s3cret-pw", "YWxpY2U6czNjcmV0LXB3", "abcdef", "p4ss", "1234"] {
                #expect(!result.stderr.contains(secret), "\(secret) leaked: \(result.stderr)")
            }
            #expect(result.stderr.contains("Authorization: Basic ••••••"))
            #expect(result.stderr.contains("X-Plain: visible"))
            #expect(result.stderr.contains("\"name\" = \"Bob\""))
        }
    }

    /// `-v` shows each exchange as it starts and as it ends, as curl's does,
    /// with the URL's credentials masked.
    @Test func verboseTracesEachExchangeWithItsOutcome() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file("a.txt", text: "hello")
        try await withReceiver { receiver, _ in
            let result = try await hoist([
                "send", receiver.baseURL + "/upload?token=s3cr3t-value&x=1", "-F", "f=@\(file)", "-s", "-v",
                "--no-history", "--no-journal",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let url = receiver.baseURL + "/upload?token=••••••&x=1"
            let lines = result.stderr.split(separator: "\n").map(String.init)
            let start = try #require(
                lines.firstIndex { $0.hasPrefix("hoist: > POST \(url) (") && $0.hasSuffix(" bytes)") })
            let end = try #require(lines.firstIndex(of: "hoist: < 200 POST \(url)"))
            #expect(start < end)
            #expect(!result.stderr.contains("s3cr3t-value"))
        }
        let refused = try await hoist([
            "send", "http://127.0.0.1:9/up", "-F", "f=@\(file)", "-s", "-v", "--retries", "1", "--no-history",
            "--no-journal",
        ])
        let failures = refused.stderr.split(separator: "\n").filter {
            $0.hasPrefix("hoist: ! POST http://127.0.0.1:9/up: ")
        }
        #expect(failures.count == 2, "one line per attempt: \(refused.stderr)")
    }
}
