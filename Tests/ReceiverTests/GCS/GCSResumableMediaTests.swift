import Crypto
import Foundation
import TestSupport
import Testing

/// google-resumable-media (PyPI), Google's own Python client for resumable uploads, against the
/// receiver: a client no one here wrote.
@Suite struct GCSResumableMediaTests {
    /// Runs the client on `source`; returns what the script printed as JSON.
    private func runClient(_ script: String, url: String, source: String) async throws -> [String: Any] {
        let prelude = """
            import base64, hashlib, io, json, sys
            import requests
            from google.resumable_media.requests import ResumableUpload
            URL, SOURCE = sys.argv[1], sys.argv[2]
            DATA = open(SOURCE, "rb").read()
            CHUNK = 256 * 1024
            transport = requests.Session()
            transport.trust_env = False  # no proxy from the environment for 127.0.0.1

            """
        let result = try await Subprocess.run(
            "/usr/bin/env", ["python3", "-c", prelude + script, url, source], timeout: .seconds(120))
        let output = String(decoding: result.stdout, as: UTF8.self)
        guard result.status == 0 else {
            throw SubprocessError(
                message: "google-resumable-media failed: \(output) \(String(decoding: result.stderr, as: UTF8.self))")
        }
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    }

    @Test func aNewClientRecoversTheSessionAfterACrashAndFinishes() async throws {
        let bytes = pseudoRandomBytes(3 * 1024 * 1024 + 17, seed: 31)
        try await withReceiver { server in
            let source = server.scratch.file("source.bin", bytes)
            let output = try await runClient(
                """
                first = ResumableUpload(URL, CHUNK)
                first.initiate(transport, io.BytesIO(DATA), {"name": "dir/身份证 正面.bin"}, "application/octet-stream")
                for _ in range(3):
                    first.transmit_next_chunk(transport)
                sent_before_crash = first.bytes_uploaded
                session = first.resumable_url

                # The client crashed: a new object knows only the session URL and the file.
                second = ResumableUpload(URL, CHUNK)
                second._resumable_url = session
                second._stream = io.BytesIO(DATA)
                second._total_bytes = len(DATA)
                second._content_type = "application/octet-stream"
                second.recover(transport)
                recovered_at = second.bytes_uploaded
                chunks = 0
                while not second.finished:
                    response = second.transmit_next_chunk(transport)
                    chunks += 1
                print(json.dumps({"session": session, "sent_before_crash": sent_before_crash,
                                  "recovered_at": recovered_at, "chunks_after": chunks,
                                  "object": response.json()}))
                """, url: server.url + "/upload/storage/v1/b/bkt/o?uploadType=resumable", source: source)
            #expect(output["sent_before_crash"] as? Int == 3 * 262_144)
            #expect(output["recovered_at"] as? Int == 3 * 262_144)
            #expect(output["chunks_after"] as? Int == 10)
            #expect((output["session"] as? String)?.hasPrefix(server.url + "/upload/storage/v1/b/bkt/o?") == true)
            let object = try #require(output["object"] as? [String: Any])
            #expect(object["name"] as? String == "dir/身份证 正面.bin")
            #expect(object["size"] as? String == String(bytes.count))
            #expect(object["md5Hash"] as? String == md5Base64(bytes))
            #expect(object["crc32c"] as? String == (try await referenceCRC32C(ofFile: source)))
            #expect(sha256(ofFile: server.saved("bkt/身份证 正面.bin")) == sha256(bytes))
        }
    }

    /// With `checksum=`, the client compares its own digest of what it sent with the final answer's.
    @Test(arguments: ["crc32c", "md5"])
    func theClientVerifiesTheFinalChecksum(_ checksum: String) async throws {
        let bytes = pseudoRandomBytes(1024 * 1024 + 5, seed: 32)
        try await withReceiver { server in
            let source = server.scratch.file("source.bin", bytes)
            let output = try await runClient(
                """
                upload = ResumableUpload(URL, CHUNK, checksum=\(String(reflecting: checksum)))
                upload.initiate(transport, io.BytesIO(DATA), {"name": "checked.bin"}, "application/octet-stream")
                upload.transmit_next_chunk(transport)
                upload.transmit_next_chunk(transport)
                # A status query in the middle leaves the session as it was.
                upload.recover(transport)
                held = upload.bytes_uploaded
                while not upload.finished:
                    response = upload.transmit_next_chunk(transport)
                print(json.dumps({"held": held, "object": response.json()}))
                """, url: server.url + "/upload/storage/v1/b/bkt/o?uploadType=resumable", source: source)
            #expect(output["held"] as? Int == 2 * 262_144)
            let object = try #require(output["object"] as? [String: Any])
            #expect(object["md5Hash"] as? String == md5Base64(bytes))
            #expect(fileBytes(server.saved("bkt/checked.bin")) == bytes)
        }
    }
}
