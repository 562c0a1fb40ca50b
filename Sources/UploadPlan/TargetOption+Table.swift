import UploadEngine

/// The table. Rows with a dialog row come first, in the dialog's order; a
/// saved profile lists the keys in this order too.
extension TargetOption {
    public static let all: [TargetOption] = [
        TargetOption(
            "method", flag: .value("--request", short: "X", "method"), help: "POST (default), PUT or PATCH.",
            row: Row(label: "Method", hint: "←/→", choices: UploadRequest.Method.allCases.map(\.rawValue)),
            writesDefault: true, parse: TargetValue.method, text: \.rawValue, at: \.method),
        TargetOption(
            "body", flag: nil, help: "How files and fields become the body: \(Target.BodyKind.names).",
            row: Row(label: "Body", hint: "←/→", choices: Target.BodyKind.allCases.map(\.rawValue)),
            writesDefault: true, parse: TargetValue.bodyKind, text: \.rawValue, at: \.bodyKind),
        TargetOption(
            "transfer", flag: .switch("--tus", means: "tus"),
            help:
                "The URL is a tus creation endpoint: each file (-T, --each) is a resumable upload; -F name=value is metadata.",
            row: Row(
                label: "Transfer", hint: "tus: resumable, each file goes on from where it stopped",
                choices: Target.TransferKind.allCases.map(\.rawValue)),
            parse: TargetValue.transfer, text: \.rawValue, at: \.transfer),
        TargetOption(
            "chunk_size", flag: .value("--chunk-size", "size"),
            help:
                "Bytes per tus PATCH or GCS chunk (K, M and G are binary units; GCS rounds up to 256K), or auto (GCS: 100M): 8M, then sized by each PATCH's speed to about a second (at most doubling), up to 64M. auto by default.",
            scope: .tus, type: .size,
            row: Row(label: "Chunk", hint: "bytes per tus PATCH, e.g. 8M, or auto (8M up to 64M, by speed)"),
            parse: TargetValue.chunkSize, text: TargetValue.text(chunk:), at: \.chunkSize),
        TargetOption(
            "expect", flag: .value("--expect", "key.path=value"),
            help: "Succeed only when the JSON answer has this value at this key path.",
            row: Row(label: "Expect", hint: "key.path=value, e.g. RETCODE=0000"),
            parse: TargetValue.expectation, text: \.text, list: \.expectations),
        TargetOption(
            "message", flag: .value("--message-path", "key.path"),
            help: "The JSON key path of the server's message, shown on failure.",
            row: Row(label: "Message", hint: "key path of the server's message, e.g. RETMSG"),
            parse: { $0 }, text: { $0 }, optional: \.messagePath),
        TargetOption(
            "retries", flag: .value("--retries", "n"),
            help: "Retries on connection errors, timeouts and 408/429/5xx (default 3).", type: .integer,
            row: Row(label: "Retries"), writesDefault: true, parse: TargetValue.retries, text: { String($0) },
            at: \.retries),
        TargetOption(
            "field", flag: nil, help: "The form field newly staged files get (default file).",
            row: Row(label: "Field", hint: "the form field of newly staged files"), writesDefault: true,
            parse: TargetValue.fieldName, text: { $0 }, at: \.fileField),
        TargetOption(
            "timeout", flag: .value("--timeout", "seconds"), help: "Seconds allowed for each attempt in all.",
            type: .seconds, row: Row(label: "Timeout", hint: "seconds per attempt; empty: none"),
            parse: TargetValue.seconds, text: TargetValue.text(seconds:), optional: \.timeouts.total),
        TargetOption(
            "connect_timeout", flag: .value("--connect-timeout", "seconds"),
            help: "Seconds allowed to connect (default 10).", type: .seconds,
            row: Row(label: "Connect", hint: "seconds to connect; empty: 10"), parse: TargetValue.seconds,
            text: TargetValue.text(seconds:), at: \.timeouts.connect),
        TargetOption(
            "idle_timeout", flag: .value("--idle-timeout", "seconds"),
            help: "Seconds with no bytes moving before giving up (default 30).", type: .seconds,
            row: Row(label: "Idle", hint: "seconds with no bytes moving; empty: 30"), parse: TargetValue.seconds,
            text: TargetValue.text(seconds:), at: \.timeouts.idle),
        TargetOption(
            "answer_timeout", flag: .value("--answer-timeout", "seconds"),
            help:
                "Seconds to wait for the answer once the whole body is sent (default 300); a POST or PATCH whose answer does not come is not sent again (see --retry-after-sent).",
            type: .seconds, row: Row(label: "Answer", hint: "seconds for the answer once the body is sent; empty: 300"),
            parse: TargetValue.seconds, text: TargetValue.text(seconds:), at: \.timeouts.answer),
        TargetOption(
            "endpoint", flag: .value("--endpoint", "url"),
            help:
                "An S3-compatible server (MinIO, R2, Ceph...) instead of AWS, else AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL; for gs:// a GCS server (an emulator), else STORAGE_EMULATOR_HOST.",
            scope: .objects,
            row: Row(
                label: "Endpoint",
                hint: "s3:// and gs:// URLs: another server (MinIO, R2, an emulator); empty: the cloud's"),
            parse: TargetValue.url, text: { $0 }, optional: \.endpoint),
        TargetOption(
            "region", flag: .value("--region", "name"),
            help: "The region (else AWS_REGION, AWS_DEFAULT_REGION, the profile's, us-east-1).", scope: .s3,
            row: Row(label: "Region", hint: "s3:// URLs; empty: as the AWS CLI finds it"), parse: TargetValue.name,
            text: { $0 }, optional: \.s3.region),
        TargetOption(
            "aws_profile", flag: .value("--aws-profile", "name"),
            help: "Credentials (and region) from this profile of ~/.aws/credentials and ~/.aws/config.", scope: .s3,
            row: Row(label: "Keys", hint: "s3:// URLs: an AWS profile of ~/.aws; empty: the environment"),
            parse: TargetValue.name, text: { $0 }, optional: \.s3.awsProfile),
        TargetOption(
            "checksum", flag: .value("--checksum", "crc32|md5"),
            help:
                "How the server checks each part: crc32 (x-amz-checksum-crc32, the default, as aws-cli) or md5 (Content-MD5, for servers without CRC32 checksums).",
            scope: .s3,
            row: Row(label: "Checksum", hint: "s3:// URLs: crc32 or md5 (servers without CRC32); empty: crc32"),
            parse: TargetValue.s3Checksum, text: \.rawValue, optional: \.s3.checksum),
        TargetOption(
            "retry_after_sent", flag: .switch("--retry-after-sent", means: "true"),
            help:
                "Send a POST or PATCH again when its answer timed out after the whole body was sent (the server may then hold it twice; --json says possible_duplicate).",
            type: .boolean, parse: TargetValue.boolean, text: { String($0) }, at: \.retryAfterSent),
        TargetOption(
            "concurrency", flag: .value("--concurrency", "n"), help: "Uploads at once (default 4).", type: .integer,
            writesDefault: true, parse: TargetValue.concurrency, text: { String($0) }, at: \.concurrency),
        TargetOption(
            "limit_rate", flag: .value("--limit-rate", "rate"),
            help:
                "Bytes per second over all uploads at once, as curl takes it: 500K, 2M, 1G (binary units); 0 for no limit.",
            type: .size, parse: TargetValue.limitRate, text: TargetValue.text(rate:), at: \.limitRate),
        TargetOption(
            "parallel_parts", flag: .value("--parallel-parts", "n"),
            help: "Send each tus file as N partial uploads at once, joined by the server (concatenation).",
            scope: .tus, type: .integer, parse: TargetValue.parallelParts, text: { String($0) }, at: \.parallelParts),
        TargetOption(
            "path_style", flag: .switch("--path-style", means: "true"),
            help: "Address the bucket in the path (host/bucket/key), not the host name.", scope: .s3, type: .boolean,
            parse: TargetValue.boolean, text: { String($0) }, at: \.s3.pathStyle),
        TargetOption(
            "part_size", flag: .value("--part-size", "size"),
            help: "Bytes per part of a multipart upload, 5M to 5G (default: 8M, larger to stay under 10,000 parts).",
            scope: .s3, type: .size, parse: TargetValue.partSize, text: TargetValue.text(size:),
            optional: \.s3.partSize),
        TargetOption(
            "part_concurrency", flag: .value("--part-concurrency", "n"),
            help: "Parts of one file sent at once (default 4).", scope: .s3, type: .integer,
            parse: TargetValue.concurrency, text: { String($0) }, at: \.s3.partConcurrency),
        TargetOption(
            "storage_class", flag: .value("--storage-class", "class"),
            help: "x-amz-storage-class of the objects, e.g. STANDARD_IA or GLACIER.", scope: .s3,
            parse: TargetValue.storageClass, text: { $0 }, optional: \.s3.storageClass),
        TargetOption(
            "acl", flag: .value("--acl", "acl"),
            help: "A canned ACL for the objects: private, public-read, bucket-owner-full-control...", scope: .s3,
            parse: TargetValue.acl, text: { $0 }, optional: \.s3.acl),
        TargetOption(
            "content_type", flag: .value("--content-type", "type"),
            help: "The objects' Content-Type (default: from each file's extension).", scope: .objects,
            parse: TargetValue.contentType, text: { $0 }, optional: \.contentType),
        TargetOption(
            "image_quality", flag: .value("--image-quality", "Q"),
            help: "Re-encode JPEG (and WebP) at quality Q, 1 to 100.", scope: .images, type: .integer,
            parse: TargetValue.imageQuality, text: { String($0) }, optional: \.imageSettings.quality),
        TargetOption(
            "image_max_dim", flag: .value("--image-max-dim", "N"),
            help: "Downscale so the longer side is at most N pixels (never upscaled).", scope: .images,
            type: .integer, parse: TargetValue.imageMaxDimension, text: { String($0) },
            optional: \.imageSettings.maxDimension),
        TargetOption(
            "image_max_bytes", flag: .value("--image-max-bytes", "size"),
            help:
                "The highest quality that fits under SIZE (e.g. 2M, 500K); smaller pixels when quality 40 does not fit.",
            scope: .images, type: .size, parse: TargetValue.imageMaxBytes, text: TargetValue.text(size:),
            optional: \.imageSettings.maxBytes),
        TargetOption(
            "image_format", flag: .value("--image-format", "jpeg|keep"),
            help: "jpeg converts PNG, WebP and HEIC to JPEG; keep (the default) keeps the format.", scope: .images,
            parse: TargetValue.imageFormat, text: \.rawValue, at: \.imageSettings.format),
        TargetOption(
            "image_keep_metadata", flag: .switch("--image-keep-metadata", means: "true"),
            help:
                "Keep EXIF, XMP and IPTC (GPS, camera serial...) in prepared images; by default only the colour profile stays.",
            scope: .images, type: .boolean, parse: TargetValue.boolean, text: { String($0) },
            at: \.imageSettings.keepsMetadata),
    ]
}
