import Foundation

/// boto3 (PyPI), a client no one here wrote, reading back what an S3
/// server (moto, SeaweedFS) stored.
public struct S3Reader: Sendable {
    public let endpoint: String
    public let key: String
    public let secret: String

    public init(endpoint: String, key: String, secret: String) {
        self.endpoint = endpoint
        self.key = key
        self.secret = secret
    }

    /// Runs Python with `ENDPOINT` and `s3` (a boto3 client with the reader's key) defined; returns what it printed.
    @discardableResult
    public func python(_ script: String) async throws -> String {
        let prelude = """
            import boto3, hashlib, json, sys
            ENDPOINT = \(String(reflecting: endpoint))
            s3 = boto3.client("s3", endpoint_url=ENDPOINT, region_name="us-east-1",
                              aws_access_key_id=\(String(reflecting: key)), aws_secret_access_key=\(String(reflecting: secret)))

            """
        let result = try await Subprocess.run(
            "/usr/bin/env", ["python3", "-c", prelude + script], timeout: .seconds(120))
        guard result.status == 0 else {
            throw SubprocessError(
                message: "python against the S3 server failed: \(String(decoding: result.stderr, as: UTF8.self))")
        }
        return String(decoding: result.stdout, as: UTF8.self)
    }

    public func createBucket(_ name: String) async throws {
        try await python("s3.create_bucket(Bucket=\(String(reflecting: name)))")
    }

    /// Size, SHA-256 and ETag of an object, as boto3 reads it back.
    public func object(_ bucket: String, _ key: String) async throws -> (size: Int, sha256: String, etag: String) {
        let out = try await python(
            """
            import base64
            body = s3.get_object(Bucket=\(String(reflecting: bucket)), Key=base64.b64decode("\(Data(key.utf8).base64EncodedString())").decode())
            data = body["Body"].read()
            print(json.dumps([len(data), hashlib.sha256(data).hexdigest(), body["ETag"]]))
            """)
        let fields = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [Any]
        return (fields[0] as! Int, fields[1] as! String, fields[2] as! String)
    }

    /// The CRC32 (base64) moto keeps for an object, as HeadObject with
    /// checksums on gives it, and the CRC32 of its bytes by Python's zlib.
    public func crc32(_ bucket: String, _ key: String) async throws -> (stored: String?, computed: String) {
        let out = try await python(
            """
            import base64, zlib
            key = base64.b64decode("\(Data(key.utf8).base64EncodedString())").decode()
            head = s3.head_object(Bucket=\(String(reflecting: bucket)), Key=key, ChecksumMode="ENABLED")
            data = s3.get_object(Bucket=\(String(reflecting: bucket)), Key=key)["Body"].read()
            computed = base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()
            print(json.dumps([head.get("ChecksumCRC32"), computed]))
            """)
        let fields = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [Any]
        return (fields[0] as? String, fields[1] as! String)
    }

    /// The multipart uploads the bucket still holds (none after an abort or completion).
    public func openUploads(_ bucket: String) async throws -> Int {
        let out = try await python(
            "print(len(s3.list_multipart_uploads(Bucket=\(String(reflecting: bucket))).get('Uploads', [])))")
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Every object under `prefix`: its key, size and SHA-256, as boto3 reads them back.
    public func objects(_ bucket: String, prefix: String = "") async throws -> [String: (size: Int, sha256: String)] {
        let out = try await python(
            """
            found = {}
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket=\(String(reflecting: bucket)), Prefix=\(String(reflecting: prefix))):
                for item in page.get("Contents", []):
                    data = s3.get_object(Bucket=\(String(reflecting: bucket)), Key=item["Key"])["Body"].read()
                    found[item["Key"]] = [len(data), hashlib.sha256(data).hexdigest()]
            print(json.dumps(found))
            """)
        let fields = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: [Any]]
        return fields.mapValues { ($0[0] as! Int, $0[1] as! String) }
    }
}
