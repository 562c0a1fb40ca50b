import Foundation
import TestSupport
import Testing

/// `hoist receive` as a user starts it.
@Suite struct ReceiveCommandTests {
    /// Bound beyond loopback, it says who can write files there.
    @Test func listeningBeyondThisMachineIsAWarning() async throws {
        let folder = TemporaryDirectory()
        for (extra, says) in [
            ([String](), "anyone who can reach this machine can write files here: give --token"),
            (["--token", "t0ken"], "every request needs the token"),
        ] {
            let result = try await run(
                "/usr/bin/timeout",
                ["3", hoistBinary, "receive", "--host", "0.0.0.0", "--port", "0", "--dir", folder.path] + extra)
            #expect(result.stdout.contains("hoist receive: listening on http://0.0.0.0:"))
            #expect(result.stderr.contains("warning: listening on 0.0.0.0, reachable from other machines; " + says))
            #expect(!result.stderr.contains("t0ken") && !result.stdout.contains("t0ken"))
        }
        let local = try await run(
            "/usr/bin/timeout", ["3", hoistBinary, "receive", "--port", "0", "--dir", folder.path])
        #expect(local.stdout.contains("listening on http://127.0.0.1:"))
        #expect(!local.stderr.contains("warning"))
    }
}
