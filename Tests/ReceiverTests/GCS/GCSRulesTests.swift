import Testing
import WireRules

@testable import Receiver

/// The Cloud Storage endpoint's rules, free of I/O: `Content-Range`, what a PUT may do (CRC-32C: WireRulesTests).
@Suite struct GCSRulesTests {
    @Test func contentRangeForms() throws {
        #expect(try GCSContentRange(parsing: "bytes 0-262143/*") == .bytes(first: 0, last: 262_143, total: nil))
        #expect(try GCSContentRange(parsing: "bytes 5-9/10") == .bytes(first: 5, last: 9, total: 10))
        #expect(try GCSContentRange(parsing: "bytes */*") == .query(total: nil))
        #expect(try GCSContentRange(parsing: "bytes */42") == .query(total: 42))
        for bad in ["bytes 0-9", "bytes 9-0/*", "bytes 0-9/9", "bytes a-b/*", "0-9/10", "bytes +1-2/*", "bytes 0-9/-1"]
        {
            #expect(throws: GCSFailure.self, "\(bad)") { try GCSContentRange(parsing: bad) }
        }
    }

    @Test func xGoogHashValues() throws {
        let both = try GCSHashes(parsing: ["crc32c=4waSgw==,md5=XUFAKrxLKna5cZ2REBfFkg=="])
        #expect(both == GCSHashes(crc32c: "4waSgw==", md5: "XUFAKrxLKna5cZ2REBfFkg=="))
        #expect(try GCSHashes(parsing: ["crc32c=4waSgw==", "md5=XUFAKrxLKna5cZ2REBfFkg=="]) == both)
        #expect(try GCSHashes(parsing: []).isEmpty)
        #expect(throws: GCSFailure.self) { try GCSHashes(parsing: ["crc32c=AAAA"]) }
        #expect(throws: GCSFailure.self) { try GCSHashes(parsing: ["md5"]) }
    }

    @Test func whatAPutMayDo() throws {
        var session = GCSSession(id: "a", bucket: "b", name: "n", contentType: "x", size: nil)
        session.persisted = 524_288
        let chunk: Int64 = 262_144
        func plan(_ range: GCSContentRange?, _ length: Int64?) throws -> GCSPutPlan {
            try session.plan(range: range, contentLength: length, maxSize: nil)
        }
        #expect(try plan(.query(total: nil), 0) == .status)
        #expect(try plan(.query(total: 1_000_000), 0) == .status)
        #expect(try plan(.query(total: 524_288), 0) == .finish(total: 524_288))
        #expect(throws: GCSFailure.self) { try plan(.query(total: 10), 0) }
        #expect(
            try plan(.bytes(first: 524_288, last: 524_288 + chunk - 1, total: nil), chunk)
                == .write(skip: 0, length: chunk, total: nil, isFinal: false))
        #expect(
            try plan(.bytes(first: 262_144, last: 786_431, total: nil), 2 * chunk)
                == .write(skip: chunk, length: 2 * chunk, total: nil, isFinal: false))
        #expect(
            try plan(.bytes(first: 524_288, last: 524_299, total: 524_300), 12)
                == .write(skip: 0, length: 12, total: 524_300, isFinal: true))
        #expect(throws: GCSFailure.self) { try plan(.bytes(first: 524_289, last: 786_432, total: nil), chunk) }
        #expect(throws: GCSFailure.self) { try plan(.bytes(first: 524_288, last: 524_298, total: nil), 11) }
        #expect(throws: GCSFailure.self) { try plan(.bytes(first: 524_288, last: 524_288 + chunk - 1, total: nil), 5) }
        let limited = try? session.plan(
            range: .bytes(first: 524_288, last: 524_288 + chunk - 1, total: nil), contentLength: chunk, maxSize: 600_000
        )
        #expect(limited == nil)
    }

    @Test func routesAndNames() throws {
        #expect(GCSRoute(path: "/upload/storage/v1/b/bkt/o") == .uploads(bucket: "bkt"))
        #expect(GCSRoute(path: "/storage/v1/b/bkt/o/a%2Fb%20c") == .object(bucket: "bkt", name: "a/b c"))
        #expect(GCSRoute(path: "/download/storage/v1/b/bkt/o/x") == .object(bucket: "bkt", name: "x"))
        #expect(GCSRoute(path: "/storage/v1/b/bkt") == .unknown)
        #expect(GCSRoute(path: "/upload/storage/v1/b/bkt/o/extra") == .unknown)
        #expect(GCSRoute(path: "/files") == nil)
        #expect(GCSRoute(path: "/upload") == nil)
        try GCSNames.checkBucket("my-bucket.example_1")
        for bad in ["ab", "Upper", ".x.", "a/b", "a..b", String(repeating: "a", count: 64)] {
            #expect(throws: GCSFailure.self, "\(bad)") { try GCSNames.checkBucket(bad) }
        }
        for bad in ["", ".", "..", "a\nb", String(repeating: "a", count: 1025)] {
            #expect(throws: GCSFailure.self) { try GCSNames.checkObject(bad) }
        }
        #expect(URIComponent.escaped("../身 x") == "..%2F%E8%BA%AB%20x")
    }
}
