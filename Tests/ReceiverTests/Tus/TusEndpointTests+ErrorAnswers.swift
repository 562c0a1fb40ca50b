import Foundation
import Receiver
import TestSupport
import Testing

/// The endpoint's error answers: 409, 415, 412, 404, 413 and 400.
extension TusEndpointTests {
    @Test func wrongOffsetGets409WithTheCurrentOffset() async throws {
        let bytes = pseudoRandomBytes(1_000, seed: 4)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 1_000, filename: "a.bin")
            #expect(try await tus.patch(location, offset: 0, Array(bytes[..<400])).offset == 400)
            for wrong in [0, 300, 500] {
                let conflict = try await tus.patch(location, offset: wrong, Array(bytes[wrong..<wrong + 100]))
                #expect(conflict.status == 409)
                #expect(conflict.offset == 400)
                #expect((try conflict.json()["error"] as? String)?.contains("resume from Upload-Offset 400") == true)
            }
            #expect(try await tus.head(location).offset == 400)
            #expect(try await tus.patch(location, offset: 400, Array(bytes[400...])).status == 204)
            #expect(fileBytes(server.saved("a.bin")) == bytes)
        }
    }

    @Test func patchWithoutTheChunkContentTypeGets415() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 10)
            for type in [["-H", "Content-Type: application/octet-stream"], []] {
                let refused = try await tus.patch(
                    location, offset: 0, Array(repeating: 7, count: 10), headers: TusCurl.version + type)
                #expect(refused.status == 415)
                #expect(refused.header("Tus-Resumable") == "1.0.0")
            }
            #expect(try await tus.head(location).offset == 0)
        }
    }

    @Test func requestsWithoutTusResumableGet412() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: 10)
            let results = [
                try await Curl.run(["-X", "POST", "-H", "Upload-Length: 10", server.url + "/files"]),
                try await tus.head(location, headers: []),
                try await tus.patch(location, offset: 0, [1, 2, 3], headers: TusCurl.chunkType),
                try await tus.patch(
                    location, offset: 0, [1, 2, 3], headers: ["-H", "Tus-Resumable: 0.2.2"] + TusCurl.chunkType),
                try await Curl.run(["-X", "DELETE", server.url + location]),
            ]
            for result in results {
                #expect(result.status == 412)
                #expect(result.header("Tus-Version") == "1.0.0")
            }
            #expect(try await tus.head(location).offset == 0)
            #expect(server.receiver.tusRequests().filter { $0.status == 412 }.count == 5)
        }
    }

    @Test func unknownUploadsGet404() async throws {
        try await withReceiver { server async throws in
            let tus = TusCurl(server)
            for location in [
                "/files/0123456789abcdef0123456789abcdef", "/files/nope", "/files/a/b", "/files/..%2F..%2Fx",
            ] {
                #expect(try await tus.head(location).status == 404, "\(location)")
                #expect(try await tus.patch(location, offset: 0, [1]).status == 404, "\(location)")
                #expect(try await tus.delete(location).status == 404, "\(location)")
            }
            #expect(try await Curl.run(["-X", "GET", server.url + "/files"]).status == 405)
        }
    }

    @Test func uploadLengthOverTheLimitGets413() async throws {
        try await withReceiver({ $0.maxBodySize = 1_000 }) { server in
            let tus = TusCurl(server)
            let refused = try await tus.create(length: 1_001)
            #expect(refused.status == 413)
            #expect(refused.header("Location") == nil)
            #expect(try await tus.create(length: 1_000).status == 201)

            // A deferred upload may not grow past it either.
            let location = try await tus.created(length: nil)
            #expect(try await tus.patch(location, offset: 0, Array(repeating: 0, count: 1_001)).status == 413)
            #expect(try await tus.head(location).offset == 0)
        }
    }

    @Test func malformedHeadersGet400() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            #expect(try await Curl.run(TusCurl.version + ["-X", "POST", server.url + "/files"]).status == 400)
            #expect(try await tus.create(length: 10, headers: ["-H", "Upload-Defer-Length: 1"]).status == 400)
            #expect(try await tus.create(length: nil, headers: ["-H", "Upload-Defer-Length: 2"]).status == 400)
            #expect(try await tus.create(length: 10, metadata: "filename not-base64!").status == 400)
            #expect(try await tus.create(length: 10, metadata: "a YQ==,a YQ==").status == 400)
            let negative = try await Curl.run(
                TusCurl.version + ["-X", "POST", "-H", "Upload-Length: -1", server.url + "/files"])
            #expect(negative.status == 400)
            let location = try await tus.created(length: 10)
            let noOffset = try await Curl.run(
                TusCurl.version + TusCurl.chunkType + ["-X", "PATCH", "--data-binary", "x", server.url + location])
            #expect(noOffset.status == 400)
            #expect(server.savedFiles == [".tus"])
        }
    }
}
