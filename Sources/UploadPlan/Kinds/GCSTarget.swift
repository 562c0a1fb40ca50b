import FormData
import FoundationEssentials
import UploadEngine
import WireRules

#if canImport(Glibc)
    import Glibc
#endif

/// `gs://BUCKET/NAME` and `gs://BUCKET/PREFIX/`, as `gcloud storage cp`
/// names objects: each file an object, sent with GCS's resumable protocol
/// (`GCSSettings`). The server is `--endpoint`, else `STORAGE_EMULATOR_HOST`
/// (as Google's libraries read it), else Google's; the token is an
/// `Authorization` header (`--gcs-token`, `-H`), else
/// `GOOGLE_OAUTH_ACCESS_TOKEN`, else a service-account key's
/// (`GOOGLE_APPLICATION_CREDENTIALS`), fetched by the driver, else
/// `gcloud auth print-access-token` (not for an emulator).
enum GCSTarget: TargetKind {
    static let label = "GCS"
    static let urlForm = "gs://BUCKET/NAME or gs://BUCKET/PREFIX/"
    static let googleEndpoint = "https://storage.googleapis.com"

    static func claims(_ url: String) -> Bool { url.lowercased().hasPrefix("gs://") }

    static func check(_ url: String) throws(TargetValueError) {
        _ = try location(url)
    }

    /// The bucket, and the object's name or a prefix (empty, or ending in `/`).
    static func location(_ url: String) throws(TargetValueError) -> (bucket: String, name: String) {
        let rest = url.dropFirst("gs://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        let name = String(rest.dropFirst(bucket.count + 1))
        let allowed = bucket.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
        }
        guard (3...222).contains(bucket.utf8.count), allowed else {
            throw TargetValueError(
                "\(String(reflecting: url)) names no GCS bucket: write gs://BUCKET/NAME (a bucket is 3 to 222 of a-z 0-9 - _ .)"
            )
        }
        guard !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }), name.utf8.count <= 1024 else {
            throw TargetValueError("a GCS object's name is at most 1024 bytes, with no control characters")
        }
        return (bucket, name)
    }

    /// `gcloud auth print-access-token`, as the user's gcloud is logged in; `nil` without gcloud or a login.
    static func gcloudToken() -> String? {
        guard let pipe = popen("gcloud auth print-access-token 2>/dev/null", "r") else { return nil }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output += buffer[..<count]
        }
        guard pclose(pipe) == 0 else { return nil }
        let token = String(
            String(decoding: output, as: UTF8.self).split(whereSeparator: { $0.isWhitespace }).first ?? "")
        return token.isEmpty ? nil : token
    }

    static func endpoint(_ target: Target, environment: [String: String]) -> String {
        if let given = target.endpoint { return given }
        if let emulator = environment["STORAGE_EMULATOR_HOST"], !emulator.isEmpty {
            return emulator.contains("://") ? emulator : "http://" + emulator
        }
        return googleEndpoint
    }

    static func requests(for target: Target, headers: [HeaderField], fields: [FormField], payload: Payload)
        throws(PlanError) -> [UploadRequest]
    {
        guard fields.isEmpty, payload.parts.isEmpty, payload.document == nil, payload.encodedData.isEmpty,
            !payload.files.isEmpty
        else {
            throw .kind("a GCS upload sends files, one object each (-T FILE, --each, a folder); it takes no fields")
        }
        let base: (bucket: String, name: String)
        do { base = try location(target.url) } catch { throw .badValue(error) }
        let isPrefix = base.name.isEmpty || base.name.hasSuffix("/")
        let files = payload.files
        guard files.count == 1 || isPrefix else {
            throw .kind(
                "\(files.count) files cannot all be the object \(target.url): end the URL with / to put them under a prefix"
            )
        }
        let environment = ProcessInfo.processInfo.environment
        let endpoint = endpoint(target, environment: environment)
        var headers = headers
        var serviceAccount: String?
        if !headers.contains(where: { $0.name.lowercased() == "authorization" }) {
            if let token = environment["GOOGLE_OAUTH_ACCESS_TOKEN"], !token.isEmpty {
                headers.append(HeaderField("Authorization", "Bearer " + token))
            } else if let key = environment["GOOGLE_APPLICATION_CREDENTIALS"], !key.isEmpty {
                guard FileManager.default.isReadableFile(atPath: key) else {
                    throw .kind("GOOGLE_APPLICATION_CREDENTIALS names \(key), which cannot be read")
                }
                // The journal keeps the path: `hoist resume` signs with the key again.
                serviceAccount = key.hasPrefix("/") ? key : FileManager.default.currentDirectoryPath + "/" + key
            } else if environment["STORAGE_EMULATOR_HOST"]?.isEmpty ?? true, let token = gcloudToken() {
                headers.append(HeaderField("Authorization", "Bearer " + token))
            }
        }
        return try files.map { file throws(PlanError) in
            guard file.path != "-" else {
                throw .kind("standard input cannot go to GCS yet: write it to a file and send that")
            }
            let type = target.contentType ?? file.contentType ?? MIMETypes.type(forFilename: file.displayName)
            let settings = GCSSettings(
                endpoint: endpoint, bucket: base.bucket, object: isPrefix ? base.name + file.displayName : base.name,
                chunkSize: target.chunkSize, contentType: type, keyIsFileName: isPrefix,
                // A file larger than a chunk the user chose goes in chunks.
                singleRequestLimit: min(GCSSettings.defaultSingleRequestLimit, target.chunkSize.initial),
                serviceAccount: serviceAccount)
            var choice = file
            choice.contentType = type
            return UploadRequest(
                url: settings.sessionURL, method: .post, headers: headers, body: choice.rawBody,
                timeouts: target.timeouts, retry: target.retryPolicy, success: SuccessRule(), label: file.displayName,
                transfer: .gcs(settings))
        }
    }
}
