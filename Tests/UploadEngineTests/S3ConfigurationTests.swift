import Foundation
import TestSupport
import Testing

@testable import UploadEngine

/// Where an S3 upload goes and with which key: `s3://` URLs, addressing,
/// the credential chain of the AWS CLI, and part sizes.
@Suite struct S3ConfigurationTests {
    @Test func s3URLsNameABucketAndAKeyOrAPrefix() throws {
        let object = try S3Location.parse("s3://my-bucket/photos/身份证 正面.jpg")
        #expect(object == S3Location(bucket: "my-bucket", key: "photos/身份证 正面.jpg"))
        #expect(!object.isPrefix)
        #expect(object.object(for: "/tmp/other.jpg") == object)
        let prefix = try S3Location.parse("s3://my-bucket/photos/")
        #expect(prefix.isPrefix)
        #expect(prefix.object(for: "card/身份证 正面.jpg").key == "photos/身份证 正面.jpg")
        #expect(try S3Location.parse("S3://my.bucket").object(for: "a.bin").key == "a.bin")
        for bad in ["http://bucket/key", "s3://", "s3://Bucket/key", "s3://ab/key", "s3://-bucket/k", "s3://a..b/k"] {
            #expect(throws: S3ConfigurationError.self, "\(bad)") { try S3Location.parse(bad) }
        }
    }

    @Test func awsIsVirtualHostedAndAnEndpointPathStyle() throws {
        let object = S3Location(bucket: "my-bucket", key: "a b/c.jpg")
        let aws = try S3Endpoint().line("PUT", object)
        #expect(aws.url == "https://my-bucket.s3.amazonaws.com/a%20b/c.jpg")
        let frankfurt = try S3Endpoint(region: "eu-central-1").line("PUT", object, query: [("uploads", nil)])
        #expect(frankfurt.url == "https://my-bucket.s3.eu-central-1.amazonaws.com/a%20b/c.jpg?uploads")
        // A dotted bucket would not match the certificate of *.s3.amazonaws.com.
        let dotted = try S3Endpoint().line("GET", S3Location(bucket: "my.bucket", key: "k"))
        #expect(dotted.url == "https://s3.amazonaws.com/my.bucket/k")
        #expect(
            try S3Endpoint(pathStyle: true).line("GET", object).url == "https://s3.amazonaws.com/my-bucket/a%20b/c.jpg")
        let minio = try S3Endpoint(url: "http://127.0.0.1:9000", region: "us-east-1").line(
            "PUT", object, query: [("partNumber", "3"), ("uploadId", "x/y+z")])
        #expect(minio.url == "http://127.0.0.1:9000/my-bucket/a%20b/c.jpg?partNumber=3&uploadId=x%2Fy%2Bz")
        #expect(minio.host == "127.0.0.1:9000")
        // The default port is not part of the signed host, as botocore leaves it out.
        #expect(try S3Endpoint(url: "https://R2.example.com:443/").line("GET", object).host == "r2.example.com")
        let bucket = try S3Endpoint(url: "http://localhost:4566").line("GET", S3Location(bucket: "b-1", key: ""))
        #expect(bucket.url == "http://localhost:4566/b-1")
        #expect(throws: S3ConfigurationError("the endpoint ftp://x must be http:// or https://")) {
            try S3Endpoint(url: "ftp://x").line("GET", object)
        }
    }

    let homes = TemporaryDirectory()

    /// A chain over a home of its own holding `files` in `.aws`.
    func chain(_ environment: [String: String], files: [String: String] = [:]) -> AWSCredentialChain {
        let home = homes.path + "/" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
        for (name, text) in files { _ = homes.file(home.dropFirst(homes.path.count + 1) + "/.aws/" + name, text: text) }
        return AWSCredentialChain(environment: environment, home: home)
    }

    static let files = [
        "credentials": """
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default/secret
        ; a comment
        [work]
        aws_access_key_id=AKIAWORK
        aws_secret_access_key=work+secret
        aws_session_token = token==
        [broken]
        aws_access_key_id = AKIABROKEN
        """,
        "config": """
        [default]
        region = eu-west-1
        [profile work]
        region = ap-south-1
        s3 =
          addressing_style = path
        [profile only-config]
        aws_access_key_id = AKIACONFIG
        aws_secret_access_key = config-secret
        """,
    ]

    @Test func theEnvironmentThenTheNamedProfileThenDefault() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"]
        var found = try chain(environment, files: Self.files).credentials()
        #expect(found.credentials == AWSCredentials(accessKeyID: "AKIAENV", secretAccessKey: "env-secret"))
        #expect(found.source == "environment")
        // --aws-profile names a profile: the environment's keys are not used then.
        found = try chain(environment, files: Self.files).credentials(profile: "work")
        #expect(
            found.credentials
                == AWSCredentials(accessKeyID: "AKIAWORK", secretAccessKey: "work+secret", sessionToken: "token=="))
        found = try chain(["AWS_PROFILE": "only-config"], files: Self.files).credentials()
        #expect(found.credentials.accessKeyID == "AKIACONFIG")
        found = try chain([:], files: Self.files).credentials()
        #expect(found.credentials.secretAccessKey == "default/secret")
        #expect(found.source == "profile default")
    }

    @Test func missingOrPartialCredentialsAreNamedWithoutTheSecret() {
        #expect(throws: S3ConfigurationError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")) {
            try chain(["AWS_ACCESS_KEY_ID": "AKIA"]).credentials()
        }
        #expect(throws: S3ConfigurationError.self) { try chain([:]).credentials() }
        do {
            _ = try chain([:]).credentials()
        } catch {
            #expect(error.message.hasPrefix("no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"))
        }
        #expect(
            throws: S3ConfigurationError("the AWS profile broken has aws_access_key_id but no aws_secret_access_key")
        ) { try chain([:], files: Self.files).credentials(profile: "broken") }
        let missing = chain([:], files: Self.files)
        #expect(
            throws: S3ConfigurationError(
                "the AWS profile nope is in neither \(missing.credentialsFile) nor \(missing.configFile)")
        ) { try missing.credentials(profile: "nope") }
    }

    @Test func regionAndEndpointFollowTheCLIsOrder() {
        let files = chain([:], files: Self.files)
        #expect(files.region() == "eu-west-1")
        #expect(files.region(profile: "work") == "ap-south-1")
        #expect(files.region("us-west-2") == "us-west-2")
        #expect(chain(["AWS_DEFAULT_REGION": "sa-east-1"], files: Self.files).region() == "sa-east-1")
        #expect(chain(["AWS_REGION": "ca-central-1", "AWS_DEFAULT_REGION": "x"]).region() == "ca-central-1")
        #expect(chain([:]).region() == "us-east-1")
        #expect(chain(["AWS_ENDPOINT_URL": "http://a", "AWS_ENDPOINT_URL_S3": "http://b"]).endpoint == "http://b")
        let moved = chain(["AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/c", "AWS_CONFIG_FILE": "/nonexistent/f"])
        #expect(moved.credentialsFile == "/nonexistent/c")
        #expect(moved.configFile == "/nonexistent/f")
    }

    @Test func partSizesStayWithinSAndItsTenThousandParts() throws {
        #expect(try S3PartSize.choose(fileSize: 100 << 20) == 8 << 20)
        #expect(try S3PartSize.choose(fileSize: 0) == 8 << 20)
        // 80,000 MiB in 8 MiB parts is exactly 10,000.
        #expect(try S3PartSize.choose(fileSize: 80_000 << 20) == 8 << 20)
        #expect(try S3PartSize.choose(fileSize: (80_000 << 20) + 1) == 16 << 20)
        #expect(try S3PartSize.choose(fileSize: 5 << 40) == 1 << 30)
        #expect(try S3PartSize.choose(fileSize: 100 << 20, requested: 5 << 20) == 5 << 20)
        #expect(throws: S3ConfigurationError("4194304 bytes is not a part size: give 5M to 5G")) {
            try S3PartSize.choose(fileSize: 100, requested: 4 << 20)
        }
        #expect(throws: S3ConfigurationError.self) { try S3PartSize.choose(fileSize: 1 << 40, requested: 5 << 20) }
        #expect(throws: S3ConfigurationError.self) { try S3PartSize.choose(fileSize: 60 << 40) }
    }
}
