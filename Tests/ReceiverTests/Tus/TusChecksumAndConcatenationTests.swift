import Crypto
import Foundation
import Receiver
import TestSupport
import Testing

/// The checksum and concatenation extensions over HTTP.
@Suite struct TusChecksumAndConcatenationTests {
    static func checksum(_ algorithm: String, _ bytes: [UInt8]) -> String {
        let digest: [UInt8] =
            switch algorithm {
            case "md5": Array(Insecure.MD5.hash(data: bytes))
            case "sha1": Array(Insecure.SHA1.hash(data: bytes))
            case "sha384": Array(SHA384.hash(data: bytes))
            case "sha512": Array(SHA512.hash(data: bytes))
            default: Array(SHA256.hash(data: bytes))
            }
        return "\(algorithm) \(Data(digest).base64EncodedString())"
    }

    static func withChecksum(_ value: String) -> [String] {
        TusCurl.version + TusCurl.chunkType + ["-H", "Upload-Checksum: \(value)"]
    }

    @Test func everyAdvertisedAlgorithmIsVerified() async throws {
        let bytes = pseudoRandomBytes(50_000, seed: 21)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count, filename: "sum.bin")
            var offset = 0
            for algorithm in ["sha1", "sha256", "sha384", "sha512", "md5"] {
                let chunk = Array(bytes[offset..<offset + 10_000])
                let patch = try await tus.patch(
                    location, offset: offset, chunk, headers: Self.withChecksum(Self.checksum(algorithm, chunk)))
                #expect(patch.status == 204, "\(algorithm): \(patch.text)")
                offset += 10_000
                #expect(patch.offset == offset)
            }
            #expect(sha256(ofFile: server.saved("sum.bin")) == sha256(bytes))
        }
    }

    @Test func aMismatchGets460AndTheChunkIsDiscarded() async throws {
        let bytes = pseudoRandomBytes(20_000, seed: 22)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let location = try await tus.created(length: bytes.count, filename: "sum.bin")
            #expect(try await tus.patch(location, offset: 0, Array(bytes[..<5_000])).offset == 5_000)

            let chunk = Array(bytes[5_000...])
            var corrupted = chunk
            corrupted[7_000] ^= 0xFF
            let mismatch = try await tus.patch(
                location, offset: 5_000, corrupted, headers: Self.withChecksum(Self.checksum("sha256", chunk)))
            #expect(mismatch.status == 460)
            #expect(mismatch.offset == 5_000)
            #expect((try mismatch.json()["error"] as? String)?.contains("does not match") == true)
            #expect(try await tus.head(location).offset == 5_000)
            let id = String(location.dropFirst("/files/".count))
            #expect(fileBytes(server.saved(".tus/" + id))?.count == 5_000)

            let unsupported = try await tus.patch(
                location, offset: 5_000, chunk, headers: Self.withChecksum("crc32 AAAAAA=="))
            #expect(unsupported.status == 400)
            #expect(
                try await tus.patch(location, offset: 5_000, chunk, headers: Self.withChecksum("sha1")).status == 400)

            let good = try await tus.patch(
                location, offset: 5_000, chunk, headers: Self.withChecksum(Self.checksum("sha256", chunk)))
            #expect(good.status == 204 && good.offset == 20_000)
            #expect(fileBytes(server.saved("sum.bin")) == bytes)
            let records = server.receiver.tusRequests().filter { $0.method == "PATCH" }
            #expect(records.map(\.status) == [204, 460, 400, 400, 204])
            #expect(records.map(\.keptBytes) == [5_000, 0, 0, 0, 15_000])
        }
    }

    @Test func creationWithUploadVerifiesItsChecksum() async throws {
        let bytes = pseudoRandomBytes(4_000, seed: 23)
        try await withReceiver { server in
            let tus = TusCurl(server)
            let bad = try await tus.create(
                length: 8_000, body: bytes, headers: ["-H", "Upload-Checksum: " + Self.checksum("md5", [1])])
            #expect(bad.status == 460)
            let location = try #require(bad.header("Location"))
            #expect(try await tus.head(location).offset == 0)
            let good = try await tus.create(
                length: 8_000, body: bytes, headers: ["-H", "Upload-Checksum: " + Self.checksum("md5", bytes)])
            #expect(good.status == 201 && good.offset == 4_000)
        }
    }

    @Test func partialUploadsAreJoinedByAFinalUpload() async throws {
        let first = pseudoRandomBytes(30_000, seed: 24)
        let second = pseudoRandomBytes(20_000, seed: 25)
        try await withReceiver { server in
            let tus = TusCurl(server)
            var locations: [String] = []
            for part in [first, second] {
                let created = try await tus.create(length: part.count, headers: ["-H", "Upload-Concat: partial"])
                let location = try #require(created.header("Location"))
                #expect(try await tus.head(location).header("Upload-Concat") == "partial")
                #expect(try await tus.patch(location, offset: 0, part).offset == part.count)
                locations.append(location)
            }
            // Complete partial uploads are not saved on their own.
            #expect(server.savedFiles == [".tus"])

            let metadata = TusCurl.metadata([("filename", "joined.bin")])
            // One part named by its absolute URL, the other by its path, as clients do both.
            let final = try await Curl.run(
                TusCurl.version + [
                    "-X", "POST", "-H", "Upload-Metadata: \(metadata)", "-H",
                    "Upload-Concat: final;\(server.url + locations[0]) \(locations[1])", server.url + "/files",
                ])
            #expect(final.status == 201, "\(final.text)")
            let location = try #require(final.header("Location"))
            #expect(fileBytes(server.saved("joined.bin")) == first + second)

            let head = try await tus.head(location)
            #expect(head.offset == 50_000 && head.header("Upload-Length") == "50000")
            #expect(head.header("Upload-Concat") == "final;\(locations[0]) \(locations[1])")
            #expect(try await tus.patch(location, offset: 50_000, [1]).status == 403)
            for part in locations { #expect(try await tus.head(part).status == 404) }
            try await eventually { server.entries.contains { $0.method == "POST" && $0.files == 1 } }
            #expect(server.entries.filter { $0.files == 1 }.count == 1)
        }
    }

    @Test func aFinalUploadNeedsCompletePartialUploads() async throws {
        try await withReceiver { server in
            let tus = TusCurl(server)
            let partial = try #require(
                try await tus.create(length: 10, headers: ["-H", "Upload-Concat: partial"]).header("Location"))
            let plain = try await tus.created(length: 0)
            for parts in [
                "\(partial)", "\(plain)", "/files/0123456789abcdef0123456789abcdef", "/elsewhere/x", "",
                "\(partial) \(partial)",
            ] {
                let final = try await Curl.run(
                    TusCurl.version + ["-X", "POST", "-H", "Upload-Concat: final;\(parts)", server.url + "/files"])
                #expect(final.status == 400, "\(parts): \(final.text)")
            }
            #expect(try await tus.head(partial).offset == 0)
        }
    }
}
