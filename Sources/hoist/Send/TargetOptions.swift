import ArgumentParser
import FormData
import FoundationEssentials
import UploadEngine
import UploadPlan
import WireRules

/// Where uploads go and how, as `hoist send` and `hoist tui` take it. Each
/// value goes through the `TargetValue` validator a profile's key and the
/// UI's `t` dialog use, so all three refuse a bad value in the same words.
struct TargetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Take the target, fields and headers from this profile in ~/.config/hoist/profiles.toml; "
                + "options given here win.",
            valueName: "name"))
    var profile: String?

    @Option(
        help: ArgumentHelp("Uploads at once (default 4, or the profile's).", valueName: "n"),
        transform: TargetValue.concurrency)
    var concurrency: Int?

    @Option(
        name: .customLong("limit-rate"),
        help: ArgumentHelp(
            "Bytes per second over all uploads at once, as curl takes it: 500K, 2M, 1G (binary units); 0 for no limit.",
            valueName: "rate"),
        transform: TargetValue.limitRate)
    var limitRate: Int64?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify the server's TLS certificate.")
    var insecure = false

    @Flag(
        help: ArgumentHelp(
            "The URL is a tus creation endpoint: each file (-T, --each) is a resumable upload; -F name=value is metadata."
        ))
    var tus = false

    @Option(
        name: .customLong("chunk-size"),
        help: ArgumentHelp(
            "Bytes per tus PATCH (K, M and G are binary units), or auto: 8M, then sized by each PATCH's speed to about a second (at most doubling), up to 64M. auto by default.",
            valueName: "size"),
        transform: TargetValue.chunkSize)
    var chunkSize: TusChunkSize?

    @Option(
        name: .customLong("parallel-parts"),
        help: ArgumentHelp(
            "Send each tus file as N partial uploads at once, joined by the server (concatenation).", valueName: "n"),
        transform: TargetValue.parallelParts)
    var parallelParts: Int?

    @OptionGroup(title: "S3 (for s3://BUCKET/KEY or s3://BUCKET/PREFIX/ URLs)")
    var s3: S3CommandOptions

    /// What these options set in a target.
    var settings: TargetSettings {
        TargetSettings(
            concurrency: concurrency, limitRate: limitRate, transfer: tus ? .tus : nil, chunkSize: chunkSize,
            parallelParts: parallelParts, s3: s3.options)
    }

    /// The profile named by `--profile`, loaded and checked.
    func loadProfile() throws -> Profile? {
        try profile.map { try Profile.load($0) }
    }
}

/// Where an `s3://` URL goes, and how: the AWS CLI's names where it has them.
struct S3CommandOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "An S3-compatible server (MinIO, R2, Ceph...) instead of AWS; else AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL.",
            valueName: "url"),
        transform: TargetValue.url)
    var endpoint: String?

    @Option(
        help: ArgumentHelp(
            "The region (else AWS_REGION, AWS_DEFAULT_REGION, the profile's, us-east-1).", valueName: "name"))
    var region: String?

    @Flag(name: .customLong("path-style"), help: "Address the bucket in the path (host/bucket/key), not the host name.")
    var pathStyle = false

    @Option(
        name: .customLong("aws-profile"),
        help: ArgumentHelp(
            "Credentials (and region) from this profile of ~/.aws/credentials and ~/.aws/config.", valueName: "name"))
    var awsProfile: String?

    @Option(
        name: .customLong("part-size"),
        help: ArgumentHelp(
            "Bytes per part of a multipart upload, 5M to 5G (default: 8M, larger to stay under 10,000 parts).",
            valueName: "size"),
        transform: TargetValue.partSize)
    var partSize: Int64?

    @Option(
        name: .customLong("part-concurrency"),
        help: ArgumentHelp("Parts of one file sent at once (default 4).", valueName: "n"),
        transform: TargetValue.concurrency)
    var partConcurrency: Int?

    @Option(
        name: .customLong("storage-class"),
        help: ArgumentHelp("x-amz-storage-class of the objects, e.g. STANDARD_IA or GLACIER.", valueName: "class"),
        transform: TargetValue.storageClass)
    var storageClass: String?

    @Option(
        help: ArgumentHelp(
            "A canned ACL for the objects: private, public-read, bucket-owner-full-control...", valueName: "acl"),
        transform: TargetValue.acl)
    var acl: String?

    @Option(
        help: ArgumentHelp(
            "How the server checks each part: crc32 (x-amz-checksum-crc32, the default, as aws-cli) or md5 (Content-MD5, for servers without CRC32 checksums).",
            valueName: "crc32|md5"),
        transform: TargetValue.s3Checksum)
    var checksum: S3Checksum?

    @Option(
        name: .customLong("content-type"),
        help: ArgumentHelp("The objects' Content-Type (default: from each file's extension).", valueName: "type"))
    var contentType: String?

    /// `nil` when no S3 option was given.
    var options: S3TargetOptions? {
        let given: [Any?] = [
            endpoint, region, awsProfile, partSize, partConcurrency, storageClass, acl, contentType, checksum,
        ]
        guard pathStyle || given.contains(where: { $0 != nil }) else { return nil }
        return S3TargetOptions(
            endpoint: endpoint, region: region, pathStyle: pathStyle, awsProfile: awsProfile, partSize: partSize,
            partConcurrency: partConcurrency ?? S3Settings.defaultPartConcurrency, storageClass: storageClass,
            acl: acl, contentType: contentType, checksum: checksum)
    }
}

/// The request's method, headers and policies, as `hoist send` takes them.
struct RequestOptions: ParsableArguments {
    @Option(
        name: [.customShort("X"), .customLong("request")],
        help: ArgumentHelp("POST (default), PUT or PATCH.", valueName: "method"),
        transform: TargetValue.method)
    var method: UploadRequest.Method?

    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp(
            "An extra request header, or @file: one header per line (blank lines and # comments skipped).",
            valueName: "Name: value"))
    var header: [String] = []

    /// Every `-H` of `hoist send`, in order, as `ArgumentRewriter` hands them over.
    @Option(name: .customLong("header-list"), help: .hidden)
    var headerList: String?

    /// The `-H` arguments in command-line order.
    var headers: [String] { ArgumentRewriter.values(headerList) + header }

    @Option(
        name: .customLong("secret-header"),
        help: ArgumentHelp(
            "A header whose value is never printed (Authorization, *-Token, *-Key... are masked anyway).",
            valueName: "name"))
    var secretHeaders: [String] = []

    @Option(name: [.customShort("A"), .customLong("user-agent")], help: "The User-Agent header.")
    var userAgent: String?

    @Option(
        name: [.customShort("u"), .customLong("user")],
        help: ArgumentHelp(
            "Basic authentication; the password is never printed. A user alone asks for the password on the terminal.",
            valueName: "user[:password]"))
    var user: String?

    @Flag(help: "Basic authentication from ~/.netrc for the URL's host (as curl): machine, login, password.")
    var netrc = false

    @Option(name: .customLong("netrc-file"), help: ArgumentHelp("As --netrc, from this file.", valueName: "file"))
    var netrcFile: String?

    @Option(
        help: ArgumentHelp("Seconds allowed for each attempt in all.", valueName: "seconds"),
        transform: TargetValue.seconds)
    var timeout: Duration?

    @Option(
        name: .customLong("connect-timeout"),
        help: ArgumentHelp("Seconds allowed to connect (default 10).", valueName: "seconds"),
        transform: TargetValue.seconds)
    var connectTimeout: Duration?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("Seconds with no bytes moving before giving up (default 30).", valueName: "seconds"),
        transform: TargetValue.seconds)
    var idleTimeout: Duration?

    @Option(
        help: ArgumentHelp("Retries on connection errors, timeouts and 408/429/5xx (default 3).", valueName: "n"),
        transform: TargetValue.retries)
    var retries: Int?

    @Option(
        help: ArgumentHelp(
            "Succeed only when the JSON answer has this value at this key path.", valueName: "key.path=value"),
        transform: TargetValue.expectation)
    var expect: [SuccessRule.Expectation] = []

    @Option(
        name: .customLong("message-path"),
        help: ArgumentHelp("The JSON key path of the server's message, shown on failure.", valueName: "key.path"))
    var messagePath: String?

    /// -H (and the lines of -H @file), then -A and -u as the headers they stand for.
    func headerEntries() throws -> [FormEntry] {
        let marked = Set(secretHeaders)
        var entries = try headers.flatMap(Self.headerFields).map {
            FormEntry(
                kind: .header, name: $0.name, value: $0.value,
                isSecret: Secrets.isSecretHeader($0.name, marked: marked) ? true : nil)
        }
        if let userAgent {
            let header = try checked("-A") { () throws(TargetValueError) in
                try TargetValue.header(name: "User-Agent", value: userAgent)
            }
            entries.append(FormEntry(kind: .header, name: header.name, value: header.value))
        }
        if let user {
            let credentials = user.contains(":") ? user : user + ":" + (try PasswordPrompt.ask(for: user))
            entries.append(Self.basicAuthorization(credentials))
        }
        return entries
    }

    /// `Authorization: Basic …` for `user:password`, as -u and a netrc entry send it.
    static func basicAuthorization(_ credentials: String, isSecret: Bool? = nil) -> FormEntry {
        FormEntry(
            kind: .header, name: "Authorization",
            value: "Basic " + String(decoding: Base64.encode(Array(credentials.utf8)), as: UTF8.self),
            isSecret: isSecret)
    }

    /// The netrc's credentials for `url` as an Authorization header, when
    /// --netrc or --netrc-file is given and nothing else authenticates
    /// (-u, -H Authorization, a profile's header), as curl does.
    func netrcEntry(for url: String, over entries: [FormEntry]) throws -> FormEntry? {
        // An s3:// URL signs its own requests with the AWS keys.
        guard netrc || netrcFile != nil, !S3Location.isS3URL(url),
            !entries.contains(where: { $0.kind == .header && $0.name.lowercased() == "authorization" }),
            let parsed = URLComponents(string: url), let host = parsed.host
        else { return nil }
        let path = netrcFile ?? homeDirectory() + "/.netrc"
        guard let entry = try Netrc(path: path).entry(host: host, user: parsed.user), let login = entry.login else {
            return nil
        }
        return Self.basicAuthorization(login + ":" + (entry.password ?? ""), isSecret: true)
    }

    /// One -H argument's headers: the line itself, or each line of `@file`, as curl reads it.
    static func headerFields(_ argument: String) throws -> [HeaderField] {
        guard argument.hasPrefix("@") else {
            return [try checked("-H") { () throws(TargetValueError) in try TargetValue.headerLine(argument) }]
        }
        do {
            return try HeaderFile.read(String(argument.dropFirst()))
        } catch {
            throw BadInput("-H \(argument): \(error)")
        }
    }
}

/// A `TargetValueError` named by the option it came from.
func checked<Value>(_ option: String, _ validate: () throws(TargetValueError) -> Value) throws -> Value {
    do { return try validate() } catch { throw BadInput("\(option): \(error.description)") }
}
