import Foundation
import TestSupport
import Testing

/// The Cloud Storage resumable upload endpoint driven by curl: the protocol as Google documents it
/// (https://cloud.google.com/storage/docs/performing-resumable-uploads).
@Suite struct GCSEndpointTests {
    @Test func twoChunksAndAShortLastOneMakeTheObject() async throws {
        let bytes = pseudoRandomBytes(2 * GCSCurl.chunk + 1000, seed: 21)
        let chunk = GCSCurl.chunk
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let initiated = try await gcs.initiate(
                name: "scan.pdf", headers: ["-H", "X-Upload-Content-Type: application/pdf"])
            #expect(initiated.status == 200)
            #expect(initiated.body.isEmpty)
            #expect(initiated.header("Content-Length") == "0")
            let session = try #require(initiated.header("Location"))
            let prefix = server.url + "/upload/storage/v1/b/bkt/o?uploadType=resumable&name=scan.pdf&upload_id="
            #expect(session.hasPrefix(prefix), "absolute session URL: \(session)")
            #expect(session.dropFirst(prefix.count).wholeMatch(of: /[0-9a-f]{32}/) != nil)

            // Nothing held yet: 308 without a Range.
            let fresh = try await gcs.status(session)
            #expect(fresh.status == 308)
            #expect(fresh.header("Range") == nil)

            let first = try await gcs.put(session, bytes, from: 0, count: chunk, total: nil)
            #expect(first.status == 308, "\(first.text)")
            #expect(first.header("Range") == "bytes=0-262143")
            #expect(first.header("Location") == nil)
            #expect(first.body.isEmpty)

            // Status queries, with an unknown and a known total, report and change nothing.
            for total in ["*", String(bytes.count), "*"] {
                let query = try await gcs.status(session, total: total)
                #expect(query.status == 308, "bytes */\(total)")
                #expect(query.header("Range") == "bytes=0-262143")
            }

            let second = try await gcs.put(session, bytes, from: chunk, count: chunk, total: bytes.count)
            #expect(second.status == 308)
            #expect(second.header("Range") == "bytes=0-524287")
            #expect(server.savedFiles == [".gcs"])

            let last = try await gcs.put(session, bytes, from: 2 * chunk, count: 1000, total: bytes.count)
            #expect(last.status == 200, "\(last.text)")
            #expect(last.header("Content-Type") == "application/json; charset=UTF-8")
            let object = try last.json()
            #expect(object["kind"] as? String == "storage#object")
            #expect(object["name"] as? String == "scan.pdf")
            #expect(object["bucket"] as? String == "bkt")
            #expect(object["size"] as? String == String(bytes.count))
            #expect(object["contentType"] as? String == "application/pdf")
            #expect(object["md5Hash"] as? String == md5Base64(bytes))
            let source = gcs.scratch.file("source", bytes)
            #expect(object["crc32c"] as? String == (try await referenceCRC32C(ofFile: source)))
            let generation = try #require(object["generation"] as? String)
            #expect(object["id"] as? String == "bkt/scan.pdf/\(generation)")
            #expect((object["timeCreated"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)

            #expect(fileBytes(server.saved("bkt/scan.pdf")) == bytes)
            #expect(listing(server.saved(".gcs")).isEmpty)

            // A finished session answers its object, to a query and to its last chunk sent again.
            let done = try await gcs.status(session)
            #expect(done.status == 200)
            #expect(try done.json()["md5Hash"] as? String == md5Base64(bytes))
            let again = try await gcs.put(session, bytes, from: 2 * chunk, count: 1000, total: bytes.count)
            #expect(again.status == 200)
            #expect(try again.json()["generation"] as? String == generation)

            let metadata = try await gcs.get(name: "scan.pdf")
            #expect(metadata.status == 200)
            #expect(try metadata.json()["size"] as? String == String(bytes.count))
            let media = try await gcs.get(name: "scan.pdf", media: true)
            #expect(media.status == 200)
            #expect(Array(media.body) == bytes)
            #expect(media.header("Content-Type") == "application/pdf")
            #expect(media.header("x-goog-hash")?.contains("md5=" + md5Base64(bytes)) == true)

            try await eventually { server.entries.count >= 12 }
            let puts = server.entries.filter { $0.method == "PUT" }
            #expect(puts.map(\.status) == [308, 308, 308, 308, 308, 308, 200, 200, 200])
            #expect(puts.filter { $0.files == 1 }.count == 1)
            #expect(puts.first?.path == "/upload/storage/v1/b/bkt/o")
            #expect(puts.map(\.bodyBytes).reduce(0, +) == Int64(bytes.count + 1000))
        }
    }

    @Test func bytesHeldAlreadyAreSkippedAndAGapIsRefused() async throws {
        let bytes = pseudoRandomBytes(3 * GCSCurl.chunk + 5, seed: 22)
        let chunk = GCSCurl.chunk
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let session = try await gcs.session(name: "overlap.bin")
            #expect(try await gcs.put(session, bytes, from: 0, count: chunk, total: nil).status == 308)
            // The same chunk again, then one that starts inside what is held: only new bytes count.
            let repeated = try await gcs.put(session, bytes, from: 0, count: chunk, total: nil)
            #expect(repeated.status == 308 && repeated.header("Range") == "bytes=0-262143")
            let overlapping = try await gcs.put(session, bytes, from: 0, count: 2 * chunk, total: nil)
            #expect(overlapping.status == 308 && overlapping.header("Range") == "bytes=0-524287")

            let gap = try await gcs.put(session, bytes, from: 3 * chunk, count: 5, total: bytes.count)
            #expect(gap.status == 400)
            let error = try #require(gap.gcsError)
            #expect(error["code"] as? Int == 400)
            #expect((error["message"] as? String)?.contains("exceeds already uploaded size of 524288 byte(s)") == true)
            #expect(try await gcs.status(session).header("Range") == "bytes=0-524287")

            let rest = try await gcs.put(session, bytes, from: 2 * chunk, count: chunk + 5, total: bytes.count)
            #expect(rest.status == 200, "\(rest.text)")
            #expect(try rest.json()["md5Hash"] as? String == md5Base64(bytes))
            #expect(fileBytes(server.saved("bkt/overlap.bin")) == bytes)
        }
    }

    @Test func aChunkCutShortKeepsItsWhole256KiBBlocks() async throws {
        let bytes = pseudoRandomBytes(2 * GCSCurl.chunk + 77, seed: 23)
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let session = try await gcs.session(name: "cut.bin")
            let path = String(session.dropFirst(server.url.count))
            // 300,000 of the 524,288 bytes announced, then the client is gone.
            let head =
                "PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 524288\r\n"
                + "Content-Range: bytes 0-524287/*\r\n\r\n"
            _ = await RawSocket.exchange(
                port: server.receiver.port, send: Array(head.utf8) + bytes[0..<300_000], until: { _ in true })

            // The query waits for the cut request to let go of the session.
            var range: String?
            for _ in 0..<50 where range == nil {
                range = try await gcs.status(session).header("Range")
                if range == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(range == "bytes=0-262143")
            #expect(try await gcs.status(session).header("Range") == "bytes=0-262143")

            let rest = try await gcs.put(
                session, bytes, from: GCSCurl.chunk, count: bytes.count - GCSCurl.chunk, total: bytes.count)
            #expect(rest.status == 200, "\(rest.text)")
            #expect(try rest.json()["md5Hash"] as? String == md5Base64(bytes))
            #expect(fileBytes(server.saved("bkt/cut.bin")) == bytes)
        }
    }

    @Test func deleteCancelsTheSessionWith499ThenItIsGone() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let session = try await gcs.session(name: "cancelled.bin")
            let chunk = pseudoRandomBytes(GCSCurl.chunk, seed: 24)
            #expect(try await gcs.put(session, range: "bytes 0-262143/*", chunk).status == 308)
            #expect(listing(server.saved(".gcs")).count == 1)

            let deleted = try await gcs.delete(session)
            #expect(deleted.status == 499)
            #expect(listing(server.saved(".gcs")).isEmpty)

            for result in [
                try await gcs.status(session), try await gcs.put(session, range: "bytes 262144-524287/*", chunk),
                try await gcs.delete(session),
            ] {
                #expect(result.status == 404)
                #expect(result.gcsError?["code"] as? Int == 404)
            }
            #expect(!server.savedFiles.contains("bkt"))
        }
    }

    @Test func emptyObjectsAndSingleRequestUploads() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            // An empty object ends with `bytes */0`: the total equals the bytes held.
            let empty = try await gcs.session(name: "empty.txt")
            let ended = try await gcs.status(empty, total: "0")
            #expect(ended.status == 200, "\(ended.text)")
            #expect(try ended.json()["size"] as? String == "0")
            #expect(fileBytes(server.saved("bkt/empty.txt")) == [])

            // The whole object in one PUT needs no Content-Range.
            let bytes = pseudoRandomBytes(1234, seed: 25)
            let whole = try await gcs.session(name: "whole.bin", headers: ["-H", "X-Upload-Content-Length: 1234"])
            let put = try await gcs.put(whole, range: nil, bytes)
            #expect(put.status == 200, "\(put.text)")
            #expect(try put.json()["size"] as? String == "1234")
            #expect(fileBytes(server.saved("bkt/whole.bin")) == bytes)
        }
    }

    @Test func aSmallObjectGoesInOneMediaRequest() async throws {
        try await withReceiver { server in
            let gcs = GCSCurl(server)
            let bytes = pseudoRandomBytes(70_000, seed: 31)
            let path = gcs.scratch.file("photo.jpg", bytes)
            let crc = try await referenceCRC32C(ofFile: path)
            let sent = try await gcs.media(
                name: "cards/身份证 正面.jpg", bytes, headers: ["-H", "x-goog-hash: crc32c=\(crc)"])
            #expect(sent.status == 200, "\(sent.text)")
            let object = try sent.json()
            #expect(object["size"] as? String == "70000" && object["contentType"] as? String == "image/jpeg")
            #expect(object["crc32c"] as? String == crc && object["md5Hash"] as? String == md5Base64(bytes))
            let read = try await gcs.get(name: "cards/身份证 正面.jpg", media: true)
            #expect(Array(read.body) == bytes)
            // A checksum that does not match keeps nothing.
            let wrong = try await gcs.media(name: "bad.jpg", bytes, headers: ["-H", "x-goog-hash: crc32c=AAAAAA=="])
            #expect(wrong.status == 400 && wrong.gcsError != nil, "\(wrong.text)")
            #expect(try await gcs.get(name: "bad.jpg").status == 404)
            let nameless = try await Curl.run(
                ["-X", "POST", "--data-binary", "x", server.url + "/upload/storage/v1/b/bkt/o?uploadType=media"])
            #expect(nameless.status == 400 && nameless.text.contains("name="), "\(nameless.text)")
        }
    }
}
