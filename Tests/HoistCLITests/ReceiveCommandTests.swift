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

    /// `--read-rate` reads the same for `receive` and `demo`: bytes per second with K, M, G.
    @Test func readRateTakesUnitsAndABadOneIsSaid() async throws {
        let folder = TemporaryDirectory()
        let bad = try await run(hoistBinary, ["receive", "--port", "0", "--dir", folder.path, "--read-rate", "fast"])
        #expect(bad.status == 2, "\(bad.status)")
        #expect(bad.stderr.contains(#""fast" is not a rate: give bytes per second, e.g. 40M or 300K; 0 for no limit"#))
        let demo = try await run(hoistBinary, ["demo", "--read-rate", "lots", "--no-ui"])
        #expect(demo.stderr.contains(#""lots" is not a rate"#), "\(demo.stderr)")
        let slow = try await run(
            "/usr/bin/timeout", ["3", hoistBinary, "receive", "--port", "0", "--dir", folder.path, "--read-rate", "8M"])
        #expect(slow.stdout.contains("listening on http://127.0.0.1:"), "\(slow.stderr)")
    }
}
