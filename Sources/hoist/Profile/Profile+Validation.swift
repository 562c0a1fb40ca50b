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
        settings.url = try check(raw.url, "url", TargetValue.url)
        rawURL = raw.url
        // S3: `transfer = "s3"` with bucket and prefix, or an s3:// url.
        var given = raw.options
        let s3Transfer = given["transfer"].map { $0.map { $0.lowercased() } == ["s3"] } ?? false
        if s3Transfer { given["transfer"] = nil }
        if let bucket = raw.bucket, s3Transfer || settings.url.map(S3Location.isS3URL) == true {
            guard raw.url == nil else { throw ProfileValueError("bucket: give either url or bucket and prefix") }
            let prefix = raw.prefix.map { $0.isEmpty || $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
            settings.url = try check("s3://\(bucket)/\(prefix)", "bucket", TargetValue.url)
        }
        let isS3 = settings.url.map(S3Location.isS3URL) == true
        // Another kind (GCS): `transfer = "gcs"` with its url, or the url alone.
        if let named = given["transfer"]?.first?.lowercased(),
            let kind = TargetKinds.all.first(where: { $0.label.lowercased() == named })
        {
            guard let url = settings.url, kind.claims(url) else {
                throw ProfileValueError("transfer = \"\(named)\" needs a url of the form \(kind.urlForm)")
            }
            given["transfer"] = nil
        }
        if s3Transfer, !isS3 { throw ProfileValueError("transfer = \"s3\" needs bucket (and prefix), or an s3:// url") }
        if !isS3 {
            let s3Keys = ["bucket", "prefix"] + TargetOption.all.filter { $0.scope == .s3 }.map(\.key)
            let present = Set(given.keys).union(
                [raw.bucket.map { _ in "bucket" }, raw.prefix.map { _ in "prefix" }]
                    .compactMap { $0 })
            if let key = s3Keys.first(where: present.contains) {
                throw ProfileValueError("\(key): goes with transfer = \"s3\" (or an s3:// url)")
            }
        }
        for option in TargetOption.all {
            guard let written = given[option.key] else { continue }
            guard option.profileType == .list else {
                settings.set(
                    try check(written[0], option.key) { text throws(TargetValueError) in try option.setting([text]) }!)
                continue
            }
            // Each item alone first, so a message names the item that is wrong.
            var values: [String] = []
            for (index, item) in written.enumerated() {
                values.append(
                    try check(item, "\(option.key)[\(index)]") { text throws(TargetValueError) in
                        _ = try option.setting([text])
                        return text
                    }!)
            }
            do { settings.set(try option.setting(values)) } catch { throw ProfileValueError("\(option.key): \(error)") }
        }
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
