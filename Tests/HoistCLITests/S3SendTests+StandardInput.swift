import Foundation
import Glibc
import TestSupport
import Testing

/// `-T -` to S3: standard input as one object, in parts read one at a time.
extension S3SendTests {
    /// `-T -`: a stream that ends within a part is one PutObject; a longer
    /// one goes in parts read one at a time (20 MiB ends on a part boundary).
    @Test(arguments: [0, 1000, 20 << 20, (12 << 20) + 3])
    func standardInputBecomesAnObject(_ size: Int) async throws {
        let (moto, environment) = try await moto()
        var generator = SeededGenerator(state: UInt64(size) + 1)
        let bytes = randomBytes(size, using: &generator)
        let result = try await run(
            "/usr/bin/time",
            [
                "-f", "maxrss_kib=%M", hoistBinary, "send", "s3://photos/stdin/backup.tar", "-T", "-", "--part-size",
                "5M", "--json", "-s", "--no-history",
            ], environment: hoistEnvironment(environment)
        ) { pipe in
            try? pipe.write(contentsOf: bytes)
        }
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        let line = try jsonObject(try #require(result.stdoutLines.first))
        #expect(line["name"] as? String == "standard input")
        #expect((line["bytes_sent"] as? NSNumber)?.intValue == size)
        let stored = try await moto.object("photos", "stdin/backup.tar")
        #expect(stored.size == size)
        #expect(stored.sha256 == sha256(bytes))
        let parts = (size + (5 << 20) - 1) / (5 << 20)
        #expect(stored.etag.hasSuffix(parts > 1 ? "-\(parts)\"" : "\""), "\(stored.etag)")
        #expect(moto.requests(containing: "partNumber=").count == (parts > 1 ? parts : 0))
        let rss = result.stderr.split(separator: "\n").first { $0.hasPrefix("maxrss_kib=") }.flatMap {
            Int($0.dropFirst("maxrss_kib=".count))
        }
        #expect(try #require(rss) < 100 * 1024, "one part at a time is held, not the stream")
    }

    /// A part of standard input that the connection lost goes again from
    /// memory: the stream is not read twice, and the object is whole.
    @Test func aLostPartOfStandardInputIsSentAgainFromMemory() async throws {
        let (moto, environment) = try await moto()
        let proxy = try await MotoProxy.start(before: moto.endpoint, cutting: "partNumber=2&")
        var generator = SeededGenerator(state: 77)
        let bytes = randomBytes((12 << 20) + 3, using: &generator)
        let result = try await hoist(
            [
                "send", "s3://photos/stdin/cut.bin", "-T", "-", "--part-size", "5M", "--endpoint", proxy.endpoint,
                "--retries", "3", "--json", "-s", "--no-history",
            ], environment: environment
        ) { pipe in
            try? pipe.write(contentsOf: bytes)
        }
        #expect(result.status == 0, "\(result.stderr)\n\(moto.logTail())")
        let line = try jsonObject(try #require(result.stdoutLines.first))
        #expect((line["attempts"] as? NSNumber)?.intValue == 2)
        let stored = try await moto.object("photos", "stdin/cut.bin")
        #expect(stored.sha256 == sha256(bytes))
        #expect(stored.etag.hasSuffix("-3\""))
        // Part 1 was confirmed before the cut: it did not go again.
        #expect(moto.requests(containing: "partNumber=1&").count == 1)
        #expect(moto.requests(containing: "partNumber=2&").count == 1)
    }
}
