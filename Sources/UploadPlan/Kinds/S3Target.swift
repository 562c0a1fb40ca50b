import FormData
import FoundationEssentials
import UploadEngine

/// `s3://BUCKET/KEY` and `s3://BUCKET/PREFIX/`: each file an object in
/// S3-compatible storage (`S3Settings`), whatever the method and body say.
/// Its own settings are `Target.s3`; `endpoint` and `content_type` it
/// shares with the other object stores.
enum S3Target: TargetKind {
    static let label = "S3"
    static let urlForm = "s3://BUCKET/KEY or s3://BUCKET/PREFIX/"

    static func claims(_ url: String) -> Bool { S3Location.isS3URL(url) }

    static func check(_ url: String) throws(TargetValueError) {
        do { _ = try S3Location.parse(url) } catch { throw TargetValueError(error.message) }
    }

    /// One object per file: the URL's key, or its prefix and the file's
    /// name. Where the server is and its region are found as the AWS CLI
    /// finds them (`S3TargetOptions`); the keys only when an attempt starts.
    static func requests(for target: Target, headers: [HeaderField], fields: [FormField], payload: Payload)
        throws(PlanError) -> [UploadRequest]
    {
        let s3 = target.s3
        let url = target.url
        guard fields.isEmpty, payload.parts.isEmpty, payload.document == nil, payload.encodedData.isEmpty else {
            throw .s3FilesOnly
        }
        let files = payload.files
        guard !files.isEmpty else { throw .s3FilesOnly }
        let base: S3Location
        do { base = try S3Location.parse(url) } catch { throw .s3(error.message) }
        guard files.count == 1 || base.isPrefix else {
            throw .s3(
                "\(files.count) files cannot all be the object \(url): end the URL with / to put them under a prefix")
        }
        let chain = AWSCredentialChain(environment: ProcessInfo.processInfo.environment)
        let endpoint = S3Endpoint(
            url: target.endpoint ?? chain.endpoint, region: chain.region(s3.region, profile: s3.awsProfile),
            pathStyle: s3.pathStyle ? true : nil)
        return try files.map { file throws(PlanError) in
            let isStandardInput = file.path == "-"
            if isStandardInput, base.isPrefix {
                throw .s3("standard input has no name to put under \(url): give the object's key, s3://BUCKET/KEY")
            }
            let settings = S3Settings(
                location: base.object(for: file.displayName), endpoint: endpoint, profile: s3.awsProfile,
                partSize: s3.partSize, partConcurrency: s3.partConcurrency, checksum: s3.checksum,
                keyIsFileName: base.isPrefix ? true : nil)
            let line: S3RequestLine
            do throws(S3ConfigurationError) {
                line = try endpoint.line("PUT", settings.location)
            } catch {
                throw .s3(error.message)
            }
            var choice = file
            let name = isStandardInput ? settings.location.key : file.displayName
            choice.contentType = target.contentType ?? file.contentType ?? MIMETypes.type(forFilename: name)
            return UploadRequest(
                url: line.url, method: .put, headers: headers + s3.headers, body: choice.rawBody,
                timeouts: target.timeouts, retry: target.retryPolicy, success: SuccessRule(),
                label: isStandardInput ? "standard input" : file.displayName, transfer: .s3(settings))
        }
    }
}
