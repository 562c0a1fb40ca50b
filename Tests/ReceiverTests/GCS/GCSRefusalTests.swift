import Foundation
import TestSupport
import Testing

/// What the Cloud Storage endpoint refuses, in Google's JSON error format, and the names it must keep
/// inside the upload folder.
@Suite struct GCSRefusalTests {
    @Test func aNonFinalChunkMustBeAMultipleOf256KiB() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let session = try await gcs.session(name: "odd.bin")
            let odd = try await gcs.put(session, range: "bytes 0-99999/*", pseudoRandomBytes(100_000))
            #expect(odd.status == 400)
            let error = try #require(odd.gcsError)
            #expect(error["code"] as? Int == 400)
            #expect((error["message"] as? String)?.contains("262144") == true)
            let detail = try #require((error["errors"] as? [[String: Any]])?.first)
            #expect(detail["domain"] as? String == "global")
            #expect(detail["reason"] as? String == "invalid")
            #expect(detail["message"] as? String == error["message"] as? String)
            // Also when the total is known but this is not the last chunk.
            let known = try await gcs.put(session, range: "bytes 0-299999/600000", pseudoRandomBytes(300_000))
            #expect(known.status == 400)
            // Nothing of a refused chunk is kept.
            let query = try await gcs.status(session)
            #expect(query.status == 308 && query.header("Range") == nil)
        }
    }

    @Test func malformedRangesAndLengthsAreRefused() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let session = try await gcs.session(name: "ranges.bin")
            let chunk = pseudoRandomBytes(GCSCurl.chunk)
            for range in ["bytes 0-262143", "bytes=9-1/*", "items 0-262143/*", "bytes 0-262143/100", "bytes -1-5/*"] {
                let result = try await gcs.put(session, range: range, chunk)
                #expect(result.status == 400, "\(range): \(result.text)")
                #expect(result.gcsError?["code"] as? Int == 400)
            }
            let mismatch = try await gcs.put(session, range: "bytes 0-524287/*", chunk)
            #expect(mismatch.status == 400, "Content-Length 262144 against a range of 524288")
            // A total that disagrees with X-Upload-Content-Length.
            let sized = try await gcs.session(name: "sized.bin", headers: ["-H", "X-Upload-Content-Length: 10"])
            #expect(try await gcs.put(sized, range: "bytes 0-4/5", [1, 2, 3, 4, 5]).status == 400)
            #expect(try await gcs.status(session).header("Range") == nil)
        }
    }

    @Test func unknownSessionsAre404() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let base = server.url + "/upload/storage/v1/b/bkt/o?uploadType=resumable&name=x"
            for id in ["0123456789abcdef0123456789abcdef", "nonsense", "..%2F..%2Fetc"] {
                let result = try await gcs.status(base + "&upload_id=" + id)
                #expect(result.status == 404, "\(id)")
                #expect(result.gcsError?["code"] as? Int == 404)
                #expect((result.gcsError?["errors"] as? [[String: Any]])?.first?["reason"] as? String == "notFound")
            }
            #expect(try await gcs.status(base).status == 400, "no upload_id at all")
            // A real session asked for under another bucket is no session.
            let session = try await gcs.session(name: "x")
            let id = session.split(separator: "=").last.map(String.init) ?? ""
            let other = server.url + "/upload/storage/v1/b/other/o?uploadType=resumable&upload_id=" + id
            #expect(try await gcs.status(other).status == 404)
            #expect(try await gcs.status(session).status == 308)
            #expect(try await gcs.get(name: "never-uploaded").status == 404)
        }
    }

    @Test func hostileObjectNamesStayInsideTheBucketFolder() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let cases: [(name: String, savedAs: String)] = [
                ("../x", "x"), ("身份证 正面.jpg", "身份证 正面.jpg"), ("photos/../../escape.txt", "escape.txt"),
                ("..", ""), ("a\u{1B}[31m.txt", "a_[31m.txt"), ("../x", "x-1"),
            ]
            for (index, item) in cases.enumerated() {
                let bytes = pseudoRandomBytes(100 + index, seed: UInt64(index + 1))
                let initiated = try await gcs.initiate(name: item.name)
                guard item.savedAs != "" else {
                    #expect(initiated.status == 400, "\(item.name) is no valid object name")
                    continue
                }
                let session = try #require(initiated.header("Location"), "\(item.name): \(initiated.text)")
                let put = try await gcs.put(session, range: "bytes 0-\(bytes.count - 1)/\(bytes.count)", bytes)
                #expect(put.status == 200, "\(item.name): \(put.text)")
                #expect(try put.json()["name"] as? String == item.name)
                #expect(fileBytes(server.saved("bkt/" + item.savedAs)) == bytes, "\(item.name)")
                // Read back by name, `/` written as %2F: the newest generation.
                let media = try await gcs.get(name: item.name, media: true)
                #expect(Array(media.body) == bytes, "\(item.name)")
            }
            #expect(listing(server.scratch.path) == ["saved"])
            #expect(server.savedFiles == [".gcs", "bkt"])

            // The name may come in the JSON body instead of the URL.
            let initiated = try await gcs.initiate(
                name: nil, body: #"{"name":"../../from-body.txt","contentType":"text/plain"}"#)
            let session = try #require(initiated.header("Location"), "\(initiated.text)")
            #expect(session.contains("name=..%2F..%2Ffrom-body.txt"))
            let put = try await gcs.put(session, range: "bytes 0-1/2", [0x68, 0x69])
            #expect(try put.json()["contentType"] as? String == "text/plain")
            #expect(fileBytes(server.saved("bkt/from-body.txt")) == [0x68, 0x69])
            #expect(try await gcs.initiate(name: nil, body: "{not json").status == 400)
            #expect(try await gcs.initiate(name: nil).status == 400, "no name anywhere")
        }
    }

    @Test func bucketNamesFollowGooglesRules() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            for bucket in ["..", "..%2Fetc", "UPPER", "ab", "-dash", "a..b", ".gcs", "with%20space"] {
                let result = try await gcs.initiate(bucket: bucket, name: "x")
                #expect(result.status == 400, "\(bucket)")
                #expect(result.gcsError?["code"] as? Int == 400)
            }
            #expect(try await gcs.initiate(bucket: "my-bucket_1.example", name: "x").status == 200)
            #expect(server.savedFiles == [".gcs"])
        }
    }

    @Test func xGoogHashIsCheckedAgainstTheWholeObject() async throws {
        let bytes = pseudoRandomBytes(GCSCurl.chunk + 10, seed: 26)
        try await withReceiver { server in
            let crc32c = try await referenceCRC32C(ofFile: server.scratch.file("source", bytes))
            let gcs = GCSCurl(server)
            let wrong = try await gcs.session(name: "wrong.bin")
            #expect(try await gcs.put(wrong, bytes, from: 0, count: GCSCurl.chunk, total: nil).status == 308)
            let last = Array(bytes[GCSCurl.chunk...])
            let range = "bytes \(GCSCurl.chunk)-\(bytes.count - 1)/\(bytes.count)"
            let refused = try await gcs.put(wrong, range: range, last, headers: ["-H", "x-goog-hash: crc32c=AAAAAA=="])
            #expect(refused.status == 400)
            #expect((refused.gcsError?["message"] as? String)?.contains("crc32c") == true)
            #expect(!server.savedFiles.contains("bkt"))
            #expect(try await gcs.status(wrong).status == 404)

            let right = try await gcs.session(name: "right.bin")
            #expect(try await gcs.put(right, bytes, from: 0, count: GCSCurl.chunk, total: nil).status == 308)
            let hash = "x-goog-hash: crc32c=\(crc32c),md5=\(md5Base64(bytes))"
            let accepted = try await gcs.put(right, range: range, last, headers: ["-H", hash])
            #expect(accepted.status == 200, "\(accepted.text)")
            #expect(try accepted.json()["crc32c"] as? String == crc32c)
            #expect(fileBytes(server.saved("bkt/right.bin")) == bytes)
        }
    }

    @Test func failFirstAnswers503InGooglesFormat() async throws {
        try await withReceiver({ $0.failFirst = 1 }) { server in
            let gcs = GCSCurl(server)
            let refused = try await gcs.initiate(name: "x")
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.gcsError?["code"] as? Int == 503)
            #expect(try await gcs.initiate(name: "x").status == 200)
        }
    }
}
