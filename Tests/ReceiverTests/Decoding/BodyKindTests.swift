import Foundation
import Receiver
import TestSupport
import Testing

/// The non-multipart bodies: urlencoded, JSON, raw, chunked, and the plain GET.
@Suite struct BodyKindTests {
    let files = TemporaryDirectory()

    @Test func urlencodedFieldsArePercentDecoded() async throws {
        try await withReceiver { server in
            let result = try await Curl.run([
                "--data-urlencode", "name=José & co", "--data-urlencode", "note=a+b=c", "-d", "plus=a+b",
                server.url + "/form",
            ])
            let upload = try result.upload()
            #expect(upload.contentType == "application/x-www-form-urlencoded")
            #expect(
                upload.fields == [
                    .init(name: "name", value: "José & co"), .init(name: "note", value: "a+b=c"),
                    .init(name: "plus", value: "a b"),
                ])
            #expect(upload.files == [])
        }
    }

    @Test func jsonIsEchoedBack() async throws {
        try await withReceiver { server in
            let result = try await Curl.run([
                "--json", #"{"RETCODE":"0000","list":[1,2.5,true,null],"nested":{"k":"v"}}"#, server.url + "/api",
            ])
            #expect(result.status == 200)
            let upload = try result.upload()
            #expect(upload.contentType == "application/json")
            #expect(
                upload.json
                    == .object([
                        "RETCODE": .string("0000"), "list": .array([.number(1), .number(2.5), .bool(true), .null]),
                        "nested": .object(["k": .string("v")]),
                    ]))
            #expect(upload.json?["RETCODE"] == .string("0000"))
            #expect(upload.fields == [] && upload.files == [])
        }
    }

    @Test func invalidJSONGets400() async throws {
        try await withReceiver { server in
            let result = try await Curl.run(["--json", #"{"a":"#, server.url + "/api"])
            #expect(result.status == 400)
            let message = try result.json()["error"] as? String
            #expect(message?.hasPrefix("invalid JSON: ") == true)
            #expect(message != "invalid JSON: ")
        }
    }

    @Test func rawPutIsSavedUnderTheLastPathComponent() async throws {
        let bytes = pseudoRandomBytes(70_000, seed: 4)
        let path = files.file("report.bin", bytes)
        try await withReceiver { server in
            // With a trailing slash, curl -T appends the file's name to the URL.
            let result = try await Curl.run(["-T", path, server.url + "/uploads/"])
            #expect(result.status == 200)
            let upload = try result.upload()
            #expect(upload.method == "PUT")
            #expect(upload.path == "/uploads/report.bin")
            #expect(
                upload.files == [
                    .init(
                        name: "", filename: "report.bin", contentType: nil, size: 70_000, sha256: sha256(bytes),
                        savedAs: "report.bin")
                ])
            #expect(fileBytes(server.saved("report.bin")) == bytes)
        }
    }

    @Test func rawPostWithDataBinary() async throws {
        let bytes = pseudoRandomBytes(50_000, seed: 5)
        let path = files.file("blob", bytes)
        try await withReceiver { server in
            let named = try await Curl.run([
                "--data-binary", "@\(path)", "-H", "Content-Type: application/octet-stream", server.url + "/raw",
            ])
            let file = try #require(try named.upload().files.first)
            #expect(file.filename == "raw")
            #expect(file.contentType == "application/octet-stream")
            #expect(file.sha256 == sha256(bytes))

            let unnamed = try await Curl.run([
                "--data-binary", "@\(path)", "-H", "Content-Type: image/jpeg", server.url + "/",
            ])
            #expect(try unnamed.upload().files.first?.savedAs == "body")
        }
    }

    @Test func chunkedBodiesOfEveryKind() async throws {
        let bytes = pseudoRandomBytes(200_000, seed: 6)
        let path = files.file("cat.jpg", bytes)
        try await withReceiver { server in
            let chunked = ["-H", "Transfer-Encoding: chunked"]
            let raw = try await Curl.run(
                chunked + [
                    "--data-binary", "@\(path)", "-H", "Content-Type: image/jpeg", server.url + "/photos/cat.jpg",
                ])
            let file = try #require(try raw.upload().files.first)
            #expect(file.filename == "cat.jpg")
            #expect(file.contentType == "image/jpeg")
            #expect(file.sha256 == sha256(bytes))
            #expect(try raw.upload().bodyBytes == 200_000)

            let form = try await Curl.run(chunked + ["--data-urlencode", "q=a b", server.url + "/"])
            #expect(try form.upload().fields == [.init(name: "q", value: "a b")])

            let json = try await Curl.run(chunked + ["--json", "[1,\"two\"]", server.url + "/"])
            #expect(try json.upload().json == .array([.number(1), .string("two")]))
        }
    }

    @Test func getAndOtherMethods() async throws {
        try await withReceiver { server in
            let root = try await Curl.run([server.url + "/"])
            #expect(root.status == 200)
            #expect(root.text == #"{"receiver":"hoist","status":"ok"}"#)
            #expect(try await Curl.run([server.url + "/nothing"]).status == 404)
            let delete = try await Curl.run(["-X", "DELETE", server.url + "/x"])
            #expect(delete.status == 405)
            #expect((try delete.json()["error"] as? String)?.contains("POST, PUT or PATCH") == true)
            let patch = try await Curl.run(["-X", "PATCH", "--json", "{}", server.url + "/x"])
            #expect(try patch.upload().method == "PATCH")
        }
    }
}
