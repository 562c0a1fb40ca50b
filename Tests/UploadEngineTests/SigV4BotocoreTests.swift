import FormData
import Foundation
import TestSupport
import Testing

@testable import UploadEngine

/// Signature Version 4 against botocore, the reference no one here wrote:
/// generated requests (Unicode and reserved characters in keys, queries
/// with bare and repeated names, messy header values, session tokens,
/// empty, hashed and unsigned payloads, presigned URLs) are signed by both
/// with the same clock, and every header and URL must be equal to the byte.
@Suite struct SigV4BotocoreTests {
    struct Case: Codable {
        var method: String
        var url: String
        var headers: [[String]]
        var payloadHash: String
        var accessKey: String
        var secret: String
        var token: String?
        var region: String
        var time: Int
        var expires: Int?
        var path: String
        var query: [[String?]]
    }

    struct Reference: Decodable {
        var authorization: String?
        var amzDate: String?
        var contentSHA256: String?
        var token: String?
        var url: String
        var encodedPath: String
        var encodedQuery: String
    }

    static let keyParts = [
        "photos", "身份证 正面.jpg", "a b", "a+b=c&d", "100%", "~tilde", "é", "😀", "semi;colon", "comma,",
        "quote'\"", "(paren)", "star*", "at@", "dollar$", "colon:", "hash#", "question?", "bracket[]", "back\\slash",
        "..", ".", "", "UPPER-case_x", "tab\there",
    ]
    static let queryItems: [(String, String?)] = [
        ("uploadId", "2~abc/DEF+ghi=="), ("partNumber", "7"), ("uploads", nil), ("list-type", "2"),
        ("prefix", "身份证/a b"), ("max-keys", "1000"), ("continuation-token", "1/2+3="), ("delete", nil),
        ("versionId", "null"), ("x-id", "PutObject"), ("encoding-type", "url"), ("marker", "é~*"),
    ]

    func generate(_ count: Int) -> [(case: Case, line: S3RequestLine, headers: [HeaderField], signer: SigV4)] {
        var random = SeededGenerator(state: 20_261_125)
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        func text(_ alphabet: String, _ length: Int) -> String {
            String((0..<length).map { _ in pick(Array(alphabet)) })
        }
        var cases: [(Case, S3RequestLine, [HeaderField], SigV4)] = []
        for index in 0..<count {
            let presign = index % 4 == 3
            let method = presign ? pick(["GET", "PUT"]) : pick(["GET", "PUT", "POST", "DELETE", "HEAD"])
            let key = (0..<Int.random(in: 1...4, using: &random)).map { _ in pick(Self.keyParts) }.joined(
                separator: "/")
            let host = pick([
                "s3.amazonaws.com", "bucket.s3.us-west-2.amazonaws.com", "127.0.0.1:9000", "localhost:4566",
                "MinIO.Example.COM", "acct.r2.cloudflarestorage.com",
            ])
            let path = (host.hasPrefix("bucket.") ? "/" : "/my-bucket/") + key
            var query: [(String, String?)] = []
            for item in Self.queryItems.shuffled(using: &random) where chance(25) { query.append(item) }
            if !presign && chance(10) { query += [("dup", "2"), ("dup", "1"), ("dup", "")] }
            var headers: [HeaderField] = []
            if chance(60) {
                headers.append(HeaderField("Content-Type", pick(["image/jpeg", "text/plain; charset=utf-8"])))
            }
            if chance(50) { headers.append(HeaderField("Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg==")) }
            if chance(50) { headers.append(HeaderField("x-amz-meta-Note", "  a   b\t c  ")) }
            if chance(30) { headers.append(HeaderField("X-Amz-Storage-Class", "STANDARD_IA")) }
            if chance(30) { headers.append(HeaderField("x-amz-acl", "private")) }
            if chance(40) { headers.append(HeaderField("User-Agent", "hoist/0.1 (Linux)")) }
            if chance(20) { headers.append(HeaderField("Expect", "100-continue")) }
            if chance(20) { headers.append(HeaderField("Range", "bytes=0-99")) }
            if chance(15) { headers += [HeaderField("X-Amz-Meta-Dup", "one"), HeaderField("x-amz-meta-dup", "two")] }
            let payload: String
            switch Int.random(in: 0..<3, using: &random) {
            case 0: payload = SigV4.emptyPayloadHash
            case 1: payload = SigV4.unsignedPayload
            default: payload = sha256(randomBytes(Int.random(in: 1...64, using: &random), using: &random))
            }
            let credentials = AWSCredentials(
                accessKeyID: "AKIA" + text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
                secretAccessKey: text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+", 40),
                sessionToken: chance(30)
                    ? text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/+=", 120) : nil)
            let region = pick(["us-east-1", "eu-central-1", "auto", "us-west-2"])
            let time = Int.random(in: 1_577_836_800...1_893_456_000, using: &random)
            let line = S3RequestLine(
                method: method, scheme: pick(["http", "https"]), host: host, path: path, query: query)
            let signer = SigV4(credentials: credentials, region: region)
            cases.append(
                (
                    Case(
                        method: method, url: line.url, headers: headers.map { [$0.name, $0.value] },
                        payloadHash: payload, accessKey: credentials.accessKeyID, secret: credentials.secretAccessKey,
                        token: credentials.sessionToken, region: region, time: time,
                        expires: presign ? Int.random(in: 1...604_800, using: &random) : nil, path: path,
                        query: query.map { [$0.0, $0.1] }), line, headers, signer
                ))
        }
        return cases
    }

    static let botocore = #"""
        import datetime, json, sys
        import botocore.auth as auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials
        from botocore.utils import percent_encode

        class Reference(auth.S3SigV4Auth):
            def payload(self, request):
                return request.context["hoist_payload"]

        out = []
        for case in json.load(open(sys.argv[1])):
            fixed = datetime.datetime.fromtimestamp(case["time"], datetime.timezone.utc).replace(tzinfo=None)
            auth.get_current_datetime = lambda remove_tzinfo=True: fixed
            request = AWSRequest(method=case["method"], url=case["url"])
            for name, value in case["headers"]:
                request.headers[name] = value
            request.context["hoist_payload"] = case["payloadHash"]
            credentials = Credentials(case["accessKey"], case["secret"], case.get("token"))
            if case.get("expires") is None:
                Reference(credentials, "s3", case["region"]).add_auth(request)
            else:
                auth.S3SigV4QueryAuth(credentials, "s3", case["region"], expires=case["expires"]).add_auth(request)
            query = "&".join(percent_encode(n) + ("" if v is None else "=" + percent_encode(v)) for n, v in case["query"])
            out.append({
                "authorization": request.headers.get("Authorization"),
                "amzDate": request.headers.get("X-Amz-Date"),
                "contentSHA256": request.headers.get("X-Amz-Content-SHA256"),
                "token": request.headers.get("X-Amz-Security-Token"),
                "url": request.url,
                "encodedPath": percent_encode(case["path"], safe="/~"),
                "encodedQuery": query,
            })
        json.dump(out, sys.stdout)
        """#

    @Test func twoHundredFortyGeneratedRequestsAreSignedAsBotocoreSignsThem() async throws {
        let cases = generate(240)
        let directory = TemporaryDirectory()
        let input = directory.path + "/cases.json"
        try JSONEncoder().encode(cases.map(\.case)).write(to: URL(fileURLWithPath: input))
        let run = try await Subprocess.run(
            "/usr/bin/env", ["python3", "-c", Self.botocore, input], timeout: .seconds(120))
        #expect(run.status == 0, "\(String(decoding: run.stderr, as: UTF8.self))")
        let references = try JSONDecoder().decode([Reference].self, from: Data(run.stdout))
        try #require(references.count == cases.count)
        var presigned = 0
        var tokens = 0
        for ((generated, line, headers, signer), reference) in zip(cases, references) {
            let date = Date(timeIntervalSince1970: TimeInterval(generated.time))
            // The URL hoist sends is the one botocore would build from the same key and query.
            #expect(line.encodedPath == reference.encodedPath)
            #expect(line.encodedQuery == reference.encodedQuery)
            if let expires = generated.expires {
                presigned += 1
                #expect(signer.presignedURL(line, headers: headers, expires: expires, at: date) == reference.url)
                continue
            }
            let signed = signer.sign(line, headers: headers, payloadHash: generated.payloadHash, at: date)
            #expect(signed.value(of: "Authorization") == reference.authorization, "\(generated.url)")
            #expect(signed.value(of: "X-Amz-Date") == reference.amzDate)
            #expect(signed.value(of: "X-Amz-Content-SHA256") == reference.contentSHA256)
            #expect(signed.value(of: "X-Amz-Security-Token") == reference.token)
            if reference.token != nil { tokens += 1 }
        }
        // Every kind was exercised.
        #expect(presigned == 60)
        #expect(tokens > 20)
    }

    /// AWS's documented example (GET Object, "Example: GET Object" in the
    /// SigV4 header-based authentication page), a fixed point no generator chose.
    @Test func awsDocumentedExampleGivesItsSignature() {
        let signer = SigV4(
            credentials: AWSCredentials(
                accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1")
        let line = S3RequestLine(
            method: "GET", scheme: "https", host: "examplebucket.s3.amazonaws.com", path: "/test.txt")
        let signed = signer.sign(
            line, headers: [HeaderField("Range", "bytes=0-9")], payloadHash: SigV4.emptyPayloadHash,
            at: Date(timeIntervalSince1970: 1_369_353_600))  // 2013-05-24T00:00:00Z
        #expect(
            signed.value(of: "Authorization")
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        )
    }

    @Test func theSecretNeverShowsInText() {
        let credentials = AWSCredentials(
            accessKeyID: "AKIAX", secretAccessKey: "very-secret", sessionToken: "tok-secret-123")
        #expect(!"\(credentials)".contains("very-secret"))
        #expect(!"\(credentials)".contains("tok-secret-123"))
        #expect("\(credentials)".contains("AKIAX"))
    }
}
