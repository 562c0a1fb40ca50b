import FormData

/// A file below the multipart threshold (or standard input that ended
/// within one part): one `PutObject`, with its checksum computed ahead.
extension UploadEngine {
    func putObject(_ id: TaskID, attempt number: Int, region: FileRegion) {
        guard let settings = records[id]?.sending.transfer.s3 else { return }
        let digest = PreparedDigest(region, algorithm: settings.checksumAlgorithm.digest)
        withChecksum(digest, id, attempt: number) { checksum in
            self.putObject(id, attempt: number, segment: .file(region), checksum: checksum)
        }
    }

    func putObject(_ id: TaskID, attempt number: Int, segment: RequestBody.Segment, checksum: String) {
        guard let record = records[id], let parent = record.attempt, let signer = record.s3.signer,
            let settings = record.sending.transfer.s3
        else { return }
        let request = record.sending
        let line: S3RequestLine
        do throws(S3ConfigurationError) {
            line = try settings.endpoint.line("PUT", settings.location)
        } catch {
            return finishS3(id, attempt: number, .failure(.protocolError(error.message)))
        }
        let algorithm = settings.checksumAlgorithm
        parent.adopt(
            sendSigned(
                line, headers: Self.objectHeaders(request) + Self.checksumHeaders(algorithm, checksum),
                body: RequestBody(contentType: "application/octet-stream", segments: [segment]),
                request: request, signer: signer,
                callbacks: s3Callbacks(id, attempt: number, part: 1) { outcome in
                    self.putAnswered(id, attempt: number, algorithm, checksum, outcome: outcome)
                }))
    }

    func putAnswered(
        _ id: TaskID, attempt number: Int, _ algorithm: S3Checksum, _ checksum: String, outcome: HTTPTransport.Outcome
    ) {
        guard isCurrent(id, attempt: number), let record = records[id] else { return }
        record.s3.inFlight = [:]
        switch outcome.result {
        case .success(let response) where (200..<300).contains(response.status):
            if let mismatch = Self.checksumMismatch(response, algorithm, sent: checksum, part: nil) {
                return finishS3(id, attempt: number, .failure(.protocolError(mismatch)))
            }
            finishS3(id, attempt: number, .success(response), offset: record.snapshot.progress.totalBytes ?? 0)
        case .success(let response):
            finishS3(id, attempt: number, .failure(Self.failure(response)))
        case .failure(let failure):
            finishS3(id, attempt: number, .failure(failure))
        }
    }
}
