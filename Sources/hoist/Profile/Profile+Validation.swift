import UploadEngine
import UploadPlan

extension Profile {
    /// Expands and checks `raw` with the validators the command line and the
    /// UI use. Messages name the key; a value that came from the environment
    /// is quoted as written in the file, never expanded, so a secret is not
    /// printed.
    init(name: String, raw: RawProfile, environment: [String: String]) throws(ProfileValueError) {
        self.name = name
        /// `key: what is wrong` for the expanded value of `key`.
        func check<Value>(
            _ written: String?, _ key: String, _ validate: (String) throws(TargetValueError) -> Value
        ) throws(ProfileValueError) -> Value? {
            guard let written else { return nil }
            let text = try EnvironmentExpansion.expand(written, key: key, environment: environment)
            do {
                return try validate(text)
            } catch {
                guard text == written else {
                    throw ProfileValueError("\(key) \(String(reflecting: written)): not valid once ${...} is expanded")
                }
                throw ProfileValueError("\(key): \(error.description)")
            }
        }
        /// `key: what is wrong` for a value that is not text (a number of seconds, of retries...).
        func checkNumber<Value, Checked>(
            _ value: Value?, _ key: String, _ validate: (Value) throws(TargetValueError) -> Checked
        ) throws(ProfileValueError) -> Checked? {
            guard let value else { return nil }
            do { return try validate(value) } catch { throw ProfileValueError("\(key): \(error.description)") }
        }
        settings.url = try check(raw.url, "url", TargetValue.url)
        rawURL = raw.url
        settings.method = try check(raw.method, "method", TargetValue.method)
        settings.bodyKind = try check(raw.body, "body", TargetValue.bodyKind)
        settings.fileField = try check(raw.field, "field", TargetValue.fieldName)
        if let expect = raw.expect {
            var expectations: [SuccessRule.Expectation] = []
            for (index, item) in expect.enumerated() {
                expectations.append(try check(item, "expect[\(index)]", TargetValue.expectation)!)
            }
            settings.expectations = expectations
        }
        settings.messagePath = try raw.message.map { text throws(ProfileValueError) in
            try EnvironmentExpansion.expand(text, key: "message", environment: environment)
        }
        settings.retries = try checkNumber(raw.retries, "retries", TargetValue.retries)
        settings.concurrency = try checkNumber(raw.concurrency, "concurrency", TargetValue.concurrency)
        settings.limitRate = try check(raw.limitRate, "limit_rate", TargetValue.limitRate)
        settings.timeout = try checkNumber(raw.timeout, "timeout", TargetValue.seconds)
        settings.connectTimeout = try checkNumber(raw.connectTimeout, "connect_timeout", TargetValue.seconds)
        settings.idleTimeout = try checkNumber(raw.idleTimeout, "idle_timeout", TargetValue.seconds)
        // S3: `transfer = "s3"` with bucket and prefix, or an s3:// url.
        let s3Transfer = raw.transfer?.lowercased() == "s3"
        if !s3Transfer { settings.transfer = try check(raw.transfer, "transfer", TargetValue.transfer) }
        if let bucket = raw.bucket, s3Transfer || settings.url.map(S3Location.isS3URL) == true {
            guard raw.url == nil else { throw ProfileValueError("bucket: give either url or bucket and prefix") }
            let prefix = raw.prefix.map { $0.isEmpty || $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
            settings.url = try check("s3://\(bucket)/\(prefix)", "bucket", TargetValue.url)
        }
        if settings.url.map(S3Location.isS3URL) == true {
            var s3 = S3TargetOptions()
            s3.endpoint = try check(raw.endpoint, "endpoint", TargetValue.url)
            s3.region = try check(raw.region, "region") { $0 }
            s3.awsProfile = try check(raw.awsProfile, "aws_profile") { $0 }
            s3.partSize = try check(raw.partSize, "part_size", TargetValue.partSize)
            s3.partConcurrency =
                try checkNumber(raw.partConcurrency, "part_concurrency", TargetValue.concurrency)
                ?? S3Settings.defaultPartConcurrency
            s3.storageClass = try check(raw.storageClass, "storage_class", TargetValue.storageClass)
            s3.acl = try check(raw.acl, "acl", TargetValue.acl)
            s3.checksum = try check(raw.checksum, "checksum", TargetValue.s3Checksum)
            settings.s3 = s3
        } else if s3Transfer {
            throw ProfileValueError("transfer = \"s3\" needs bucket (and prefix), or an s3:// url")
        } else {
            let s3Keys: [(String, Any?)] = [
                ("bucket", raw.bucket), ("prefix", raw.prefix), ("endpoint", raw.endpoint), ("region", raw.region),
                ("aws_profile", raw.awsProfile), ("part_size", raw.partSize), ("part_concurrency", raw.partConcurrency),
                ("storage_class", raw.storageClass), ("acl", raw.acl), ("checksum", raw.checksum),
            ]
            if let key = s3Keys.first(where: { $0.1 != nil })?.0 {
                throw ProfileValueError("\(key): goes with transfer = \"s3\" (or an s3:// url)")
            }
        }
        settings.chunkSize = try check(raw.chunkSize, "chunk_size", TargetValue.chunkSize)
        settings.parallelParts = try checkNumber(raw.parallelParts, "parallel_parts", TargetValue.parallelParts)
        let images = ImageSettings(
            quality: try check(raw.imageQuality.map(String.init), "image_quality", TargetValue.imageQuality),
            maxDimension: try check(raw.imageMaxDim.map(String.init), "image_max_dim", TargetValue.imageMaxDimension),
            maxBytes: try check(raw.imageMaxBytes, "image_max_bytes", TargetValue.imageMaxBytes),
            format: try check(raw.imageFormat, "image_format", TargetValue.imageFormat) ?? .keep,
            keepsMetadata: raw.imageKeepMetadata ?? false)
        if images.changesImages { settings.images = images }
        func entries(_ pairs: [RawProfile.Pair]?, _ key: String) throws(ProfileValueError) -> [Entry] {
            var result: [Entry] = []
            for (index, pair) in (pairs ?? []).enumerated() {
                let at = "\(key)[\(index)]"
                let name = try EnvironmentExpansion.expand(pair.name, key: at + ".name", environment: environment)
                let value = try EnvironmentExpansion.expand(pair.value, key: at + ".value", environment: environment)
                guard !name.isEmpty else { throw ProfileValueError("\(at).name: empty") }
                if key == "headers" {
                    do { _ = try TargetValue.header(name: name, value: value) } catch {
                        throw ProfileValueError("\(at): \(error.description)")
                    }
                }
                result.append(Entry(name: name, value: value, secret: pair.secret ?? false, rawValue: pair.value))
            }
            return result
        }
        fields = try entries(raw.fields, "fields")
        headers = try entries(raw.headers, "headers")
        settings.entries = Self.entries(fields: fields, headers: headers)
    }
}
