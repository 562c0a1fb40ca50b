import Testing

@testable import Receiver

/// The pure parts of the tus endpoint: header parsing and the rules on an upload's state.
@Suite struct TusRulesTests {
    func headers(_ values: [String: String]) -> TusHeaders {
        TusHeaders { name in values.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    @Test func metadataIsDecodedAndValidated() throws {
        let metadata = try TusMetadata(parsing: "filename 6Lqr5Lu96K+BIOato+mdoi5qcGc=,filetype aW1hZ2UvanBlZw==,flag")
        #expect(metadata.filename == "身份证 正面.jpg")
        #expect(metadata.filetype == "image/jpeg")
        #expect(metadata.values["flag"] == "")
        #expect(try TusMetadata(parsing: "name YS50eHQ=").filename == "a.txt")
        #expect(try TusMetadata(parsing: "").values.isEmpty)
        #expect(try TusMetadata(parsing: "filename ,name YQ==").filename == "a")
        for bad in ["a !!!", "a YQ==,a YQ==", "a YQ== extra", ",", "k\u{E9}y YQ=="] {
            #expect(throws: TusFailure.self, "\(bad)") { try TusMetadata(parsing: bad) }
        }
    }

    @Test func checksumHeaders() throws {
        let checksum = try TusChecksum(parsing: "SHA256 n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=")
        #expect(checksum.algorithm == .sha256 && checksum.digest.count == 32)
        #expect(
            throws: TusFailure.badRequest(
                "Upload-Checksum: crc32 is not supported; use one of sha1,sha256,sha384,sha512,md5")
        ) {
            try TusChecksum(parsing: "crc32 AAAA")
        }
        #expect(throws: TusFailure.self) { try TusChecksum(parsing: "sha1") }
        #expect(throws: TusFailure.self) { try TusChecksum(parsing: "sha1 %%%") }
    }

    @Test func creationHeaders() throws {
        let plain = try TusCreation(headers(["Upload-Length": "10"]), maxSize: nil)
        #expect(plain.kind == .single && plain.length == 10)
        let deferred = try TusCreation(headers(["Upload-Defer-Length": "1"]), maxSize: nil)
        #expect(deferred.length == nil)
        let partial = try TusCreation(headers(["Upload-Length": "5", "Upload-Concat": "partial"]), maxSize: nil)
        #expect(partial.kind == .partial)
        let final = try TusCreation(headers(["Upload-Concat": "final;/files/a http://h/files/b"]), maxSize: nil)
        #expect(final.kind == .final(["/files/a", "http://h/files/b"]))
        #expect(throws: TusFailure.self) { try TusCreation(headers([:]), maxSize: nil) }
        #expect(throws: TusFailure.self) {
            try TusCreation(headers(["Upload-Length": "1", "Upload-Defer-Length": "1"]), maxSize: nil)
        }
        #expect(throws: TusFailure.self) { try TusCreation(headers(["Upload-Length": "+5"]), maxSize: nil) }
        #expect(throws: TusFailure.self) {
            try TusCreation(headers(["Upload-Concat": "final;/files/a", "Upload-Length": "3"]), maxSize: nil)
        }
        #expect(throws: TusFailure.self) { try TusCreation(headers(["Upload-Concat": "whole"]), maxSize: nil) }
        #expect(throws: TusFailure.tooLarge("Upload-Length 11 is larger than Tus-Max-Size 10")) {
            try TusCreation(headers(["Upload-Length": "11"]), maxSize: 10)
        }
        #expect(throws: TusFailure.versionMissing) { try headers([:]).checkVersion() }
        #expect(throws: TusFailure.self) { try headers(["Content-Type": "text/plain"]).checkChunkContentType() }
        try headers(["Content-Type": "Application/Offset+Octet-Stream; x=1"]).checkChunkContentType()
    }

    @Test func patchRules() throws {
        var upload = TusUpload(id: "a", length: 100, metadata: TusMetadata())
        upload.offset = 40
        #expect(
            try upload.plan(patchOffset: 40, declaredLength: nil, contentLength: 60, maxSize: nil)
                == TusPatchPlan(length: 100, setsLength: false, room: 60))
        #expect(throws: TusFailure.conflict("Upload-Offset 30 is not the upload's offset 40", offset: 40)) {
            try upload.plan(patchOffset: 30, declaredLength: nil, contentLength: 1, maxSize: nil)
        }
        #expect(throws: TusFailure.self) {
            try upload.plan(patchOffset: nil, declaredLength: nil, contentLength: 1, maxSize: nil)
        }
        #expect(throws: TusFailure.self) {
            try upload.plan(patchOffset: 40, declaredLength: 99, contentLength: 1, maxSize: nil)
        }
        #expect(throws: TusFailure.self) {
            try upload.plan(patchOffset: 40, declaredLength: nil, contentLength: 61, maxSize: nil)
        }

        var deferred = TusUpload(id: "b", length: nil, metadata: TusMetadata())
        deferred.offset = 40
        #expect(
            try deferred.plan(patchOffset: 40, declaredLength: nil, contentLength: 10, maxSize: 1_000)
                == TusPatchPlan(length: nil, setsLength: false, room: 960))
        #expect(
            try deferred.plan(patchOffset: 40, declaredLength: 50, contentLength: 10, maxSize: nil)
                == TusPatchPlan(length: 50, setsLength: true, room: 10))
        #expect(throws: TusFailure.self) {
            try deferred.plan(patchOffset: 40, declaredLength: 39, contentLength: 0, maxSize: nil)
        }
        #expect(throws: TusFailure.self) {
            try deferred.plan(patchOffset: 40, declaredLength: 2_000, contentLength: 0, maxSize: 1_000)
        }

        let final = TusUpload(id: "c", length: 5, metadata: TusMetadata(), concat: .final(["/files/x"]))
        #expect(throws: TusFailure.self) {
            try final.plan(patchOffset: 5, declaredLength: nil, contentLength: 0, maxSize: nil)
        }
    }

    @Test func concatenatedLength() throws {
        var a = TusUpload(id: "a", length: 3, metadata: TusMetadata(), concat: .partial)
        var b = TusUpload(id: "b", length: 4, metadata: TusMetadata(), concat: .partial)
        a.offset = 3
        #expect(throws: TusFailure.self) { try TusUpload.concatenatedLength(of: [a, b], maxSize: nil) }
        b.offset = 4
        #expect(try TusUpload.concatenatedLength(of: [a, b], maxSize: nil) == 7)
        #expect(throws: TusFailure.self) { try TusUpload.concatenatedLength(of: [a, b], maxSize: 6) }
        var single = TusUpload(id: "s", length: 1, metadata: TusMetadata())
        single.offset = 1
        #expect(throws: TusFailure.self) { try TusUpload.concatenatedLength(of: [a, single], maxSize: nil) }
        #expect(throws: TusFailure.self) { try TusUpload.concatenatedLength(of: [], maxSize: nil) }
    }

    @Test func routesAndIDs() {
        #expect(TusRoute(path: "/files", basePath: "/files") == .collection)
        #expect(TusRoute(path: "/files/", basePath: "/files") == .collection)
        #expect(TusRoute(path: "/files/abc", basePath: "/files") == .upload("abc"))
        #expect(TusRoute(path: "/filesx", basePath: "/files") == nil)
        #expect(TusRoute(path: "/upload", basePath: "/files") == nil)
        #expect(TusRoute.normalizedBasePath("files/") == "/files")
        #expect(TusRoute.normalizedBasePath("/a//b/") == "/a/b")
        #expect(TusRoute.normalizedBasePath("/") == nil)
        #expect(UploadID.isValid(UploadID.make()))
        #expect(UploadID.make() != UploadID.make())
        #expect(!UploadID.isValid("../../../../etc/passwd"))
        #expect(!UploadID.isValid("0123456789ABCDEF0123456789abcdef"))
        #expect(TusService.path(of: "http://127.0.0.1:8080/files/abc?x=1") == "/files/abc")
        #expect(TusService.path(of: "/files/abc") == "/files/abc")
    }
}
