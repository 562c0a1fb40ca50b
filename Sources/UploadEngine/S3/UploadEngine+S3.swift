import Crypto
import Dispatch
import FormData
import FoundationEssentials
import NIOConcurrencyHelpers

/// An S3 task's attempt, on `queue`: a file below the multipart threshold
/// goes as one `PutObject`; a larger one through `S3MultipartStateMachine`,
/// whose exchanges are signed here (SigV4, at the moment each is sent) and
/// whose answers are decoded back into its events. Each confirmed part is a
/// checkpoint for the monitors.
///
/// Payloads are sent as `UNSIGNED-PAYLOAD` with a checksum the server
/// verifies: `x-amz-checksum-crc32` by default (as aws-cli sends), or
/// `Content-MD5` (`S3Checksum`). It is computed ahead while the previous
/// part is on the wire. Hashing each part a second time for SHA-256 would
/// add CPU for no more safety (over TLS nothing can change a byte on the
/// way; over plain HTTP nothing stops a man in the middle from re-signing
/// anyway).
extension UploadEngine {
    func startS3(_ id: TaskID, attempt number: Int, driver: S3Driver) {
        guard let record = records[id] else { return }
        let request = record.sending
        guard let settings = request.transfer.s3 else { return }
        let credentials: AWSCredentials
        do {
            credentials = try AWSCredentialChain(environment: environment)
                .credentials(profile: settings.profile).credentials
        } catch {
            return finishS3(id, attempt: number, .failure(.protocolError(error.message)))
        }
        if case .stream(let source, _) = request.body {
            driver.signer = s3Signer(SigV4(credentials: credentials, region: settings.endpoint.region))
            return startS3Stream(id, attempt: number, settings: settings, source: source)
        }
        guard case .rawFile(let path, _) = request.body else {
            return finishS3(id, attempt: number, .failure(.other("an S3 upload sends one file as its body")))
        }
        let file: FileSnapshot
        do {
            file = try FileRegion.wholeFile(path: path, field: "").snapshot
        } catch {
            return finishS3(id, attempt: number, .failure(.input(error)))
        }
        driver.signer = s3Signer(SigV4(credentials: credentials, region: settings.endpoint.region))
        if let abandoned = driver.abandoned {
            driver.abandoned = nil
            abort(.abort(uploadID: abandoned.uploadID), of: record)
        }
        driver.inFlight = [:]
        driver.prepared = [:]
        let saved = record.snapshot.checkpoint?.s3
        if driver.machine == nil, saved == nil, file.size < settings.multipartThreshold {
            beginResumable(record, attempt: number, totalBytes: file.size, offset: 0)
            return putObject(
                id, attempt: number,
                region: FileRegion(path: path, field: "", offset: 0, length: file.size, snapshot: file))
        }
        if driver.machine == nil {
            let partSize: Int64
            do {
                partSize = try S3PartSize.choose(fileSize: file.size, requested: settings.partSize)
            } catch {
                return finishS3(id, attempt: number, .failure(.protocolError(error.message)))
            }
            driver.machine = S3MultipartStateMachine(
                path: path, partSize: partSize, concurrency: settings.partConcurrency, checkpoint: saved,
                checksum: settings.checksumAlgorithm)
        }
        beginResumable(record, attempt: number, totalBytes: file.size, offset: driver.machine!.offset)
        performS3(id, attempt: number, handleS3(record, .start(file: file)))
    }

    /// Standard input: its first part decides. A stream that ends within it
    /// goes as one `PutObject`; a longer one as a multipart upload of parts
    /// read one at a time, each held in memory until the server has it.
    private func startS3Stream(_ id: TaskID, attempt number: Int, settings: S3Settings, source: StreamSource) {
        guard let record = records[id] else { return }
        record.s3.inFlight = [:]
        record.s3.prepared = [:]
        if record.stream == nil { record.stream = StreamBuffer(source) }
        beginResumable(record, attempt: number, totalBytes: nil, offset: record.s3.machine?.offset ?? 0)
        if record.s3.machine != nil {
            return performS3(id, attempt: number, handleS3(record, .start(file: nil)))
        }
        let partSize = settings.partSize ?? S3PartSize.preferred
        readStream(id, attempt: number, 0..<partSize, checksum: settings.checksumAlgorithm) { chunk, checksum in
            guard let record = self.records[id] else { return }
            guard chunk.isLast else {
                record.s3.machine = S3MultipartStateMachine(
                    path: "-", partSize: partSize, concurrency: 1, checkpoint: nil,
                    checksum: settings.checksumAlgorithm, isStream: true)
                return self.performS3(id, attempt: number, self.handleS3(record, .start(file: nil)))
            }
            record.snapshot.progress.totalBytes = Int64(chunk.bytes.count)
            self.putObject(id, attempt: number, segment: .bytes(chunk.bytes), checksum: checksum)
        }
    }

    /// Reads `range` of the task's standard input off the queue, with its
    /// checksum, then runs `body` on the queue while the attempt is current.
    private func readStream(
        _ id: TaskID, attempt number: Int, _ range: Range<Int64>, checksum algorithm: S3Checksum,
        _ body: @escaping @Sendable (StreamBuffer.Chunk, String) -> Void
    ) {
        guard let stream = records[id]?.stream else { return }
        DispatchQueue.global().async {
            let chunk: StreamBuffer.Chunk
            do throws(UploadFailure) {
                chunk = try stream.chunk(range)
            } catch {
                return self.queue.async { self.finishS3(id, attempt: number, .failure(error)) }
            }
            let checksum = StreamingDigest.base64(of: chunk.bytes, algorithm.digest)
            self.queue.async {
                guard self.isCurrent(id, attempt: number) else { return }
                body(chunk, checksum)
            }
        }
    }

    /// Sends `AbortMultipartUpload` for a cancelled upload, and forgets it
    /// so a retry creates a new one.
    func abortS3(_ record: TaskRecord, driver: S3Driver) {
        guard let exchange = driver.machine?.abortion() else { return }
        driver.machine = nil
        record.snapshot.checkpoint = nil
        abort(exchange, of: record)
    }

    /// An `AbortMultipartUpload` of a restored task's upload, signed with the
    /// keys found now, as an attempt would find them.
    func releaseS3(
        _ checkpoint: TransferCheckpoint, request: UploadRequest,
        done: @escaping @Sendable (Result<String, Unreleased>) -> Void
    ) {
        guard let upload = checkpoint.s3, let settings = request.transfer.s3 else {
            return done(.success("nothing was held on the server"))
        }
        let signer: S3Signer
        let line: S3RequestLine
        let headers: [HeaderField]
        let body: RequestBody?
        do {
            let credentials = try AWSCredentialChain(environment: environment)
                .credentials(profile: settings.profile).credentials
            signer = s3Signer(SigV4(credentials: credentials, region: settings.endpoint.region))
            (line, headers, body) = try s3Request(
                .abort(uploadID: upload.uploadID), settings: settings, request: request)
        } catch {
            return done(.failure(Unreleased("cannot abort S3 multipart upload \(upload.uploadID): \(error)")))
        }
        _ = sendSigned(
            line, headers: headers, body: body, request: request, signer: signer,
            callbacks: releaseCallbacks { result in
                switch result {
                case .success(let answer) where (200..<300).contains(answer.status):
                    done(.success("the multipart upload was aborted on the server, so none of its parts stays stored"))
                case .success(let answer):
                    let error = S3ServerError(status: answer.status, body: answer.body)
                    if answer.status == 404, error?.code ?? "NoSuchUpload" == "NoSuchUpload" {
                        return done(.success("the server holds no such multipart upload any more"))
                    }
                    let why = error.map { "\($0)" } ?? "HTTP \(answer.status)"
                    done(.failure(Unreleased("AbortMultipartUpload of \(upload.uploadID) was refused: \(why)")))
                case .failure(let failure):
                    done(.failure(Unreleased("cannot abort S3 multipart upload \(upload.uploadID): \(failure)")))
                }
            })
    }

    /// Sends an `AbortMultipartUpload`, answered or not.
    private func abort(_ exchange: S3MultipartStateMachine.Exchange, of record: TaskRecord) {
        guard let settings = record.sending.transfer.s3, let signer = record.s3.signer,
            let (line, headers, body) = try? s3Request(exchange, settings: settings, request: record.sending)
        else { return }
        _ = sendSigned(
            line, headers: headers, body: body, request: record.sending, signer: signer, callbacks: cleanupCallbacks())
    }

    /// Runs `send` on `queue` with the region's checksum once it is
    /// hashed, while the attempt is still the task's; a file that cannot be
    /// read ends the attempt.
    func withChecksum(
        _ digest: PreparedDigest, _ id: TaskID, attempt number: Int,
        _ send: @escaping @Sendable (_ checksum: String) -> Void
    ) {
        digest.whenReady(on: queue) { result in
            guard self.isCurrent(id, attempt: number) else { return }
            switch result {
            case .success(let checksum): send(checksum)
            // Later: the caller may be sending the task's other parts.
            case .failure(let failure): self.queue.async { self.finishS3(id, attempt: number, .failure(failure)) }
            }
        }
    }

    // MARK: - Multipart

    private func performS3(_ id: TaskID, attempt number: Int, _ step: S3MultipartStateMachine.Step) {
        guard isCurrent(id, attempt: number), let record = records[id], let machine = record.s3.machine else { return }
        let changed = step.note != nil || record.snapshot.resumedFrom != machine.resumedFrom
        record.snapshot.note = step.note ?? record.snapshot.note
        record.snapshot.resumedFrom = machine.resumedFrom
        if let checkpoint = step.checkpoint {
            saveCheckpoint(.s3(checkpoint), of: record, sent: Self.s3Sent(record))
        } else if changed {
            emit(.stateChanged(record.snapshot))
        }
        for exchange in step.sends { sendS3(exchange, id: id, attempt: number) }
        switch step.end {
        case .done?: finishS3(id, attempt: number, .success(record.lastAnswer))
        case .fail(let failure)?: finishS3(id, attempt: number, .failure(failure))
        case .recheck(let failure)?: finishS3(id, attempt: number, .failure(failure), recheck: true)
        case nil: break
        }
    }

    private func sendS3(_ exchange: S3MultipartStateMachine.Exchange, id: TaskID, attempt number: Int) {
        guard let record = records[id], let parent = record.attempt, let signer = record.s3.signer,
            let settings = record.sending.transfer.s3, let machine = record.s3.machine
        else { return }
        let request = record.sending
        let line: S3RequestLine
        let headers: [HeaderField]
        let body: RequestBody?
        do {
            (line, headers, body) = try s3Request(exchange, settings: settings, request: request)
        } catch {
            return finishS3(id, attempt: number, .failure(.protocolError(error.message)))
        }
        guard case .uploadPart(_, let part, let range) = exchange else {
            parent.adopt(
                sendSigned(
                    line, headers: headers, body: body, request: request, signer: signer,
                    callbacks: s3Callbacks(id, attempt: number, part: nil) { outcome in
                        self.s3Answered(id, attempt: number, exchange, outcome: outcome, checksum: nil)
                    }))
            return
        }
        let algorithm = machine.upload?.checksumAlgorithm ?? .md5
        let send = { @Sendable (segment: RequestBody.Segment, checksum: String) in
            guard let parent = self.records[id]?.attempt else { return }
            parent.adopt(
                self.sendSigned(
                    line, headers: headers + Self.checksumHeaders(algorithm, checksum),
                    body: RequestBody(contentType: "application/octet-stream", segments: [segment]),
                    request: request, signer: signer,
                    callbacks: self.s3Callbacks(id, attempt: number, part: part) { outcome in
                        self.s3Answered(
                            id, attempt: number, exchange, outcome: outcome, checksum: (algorithm, checksum))
                    }))
        }
        if machine.isStream {
            // The part that ends the stream says the object's length first.
            return readStream(id, attempt: number, range, checksum: algorithm) { chunk, checksum in
                if chunk.isLast, let record = self.records[id] {
                    let length = range.lowerBound + Int64(chunk.bytes.count)
                    record.snapshot.progress.totalBytes = length
                    self.performS3(id, attempt: number, self.handleS3(record, .streamEnded(length: length)))
                }
                send(.bytes(chunk.bytes), checksum)
            }
        }
        // The part's checksum goes in a header, before the body: hashed on
        // a thread of its own, and the next parts' meanwhile.
        guard let region = Self.partRegion(machine, range) else {
            return finishS3(id, attempt: number, .failure(.other("s3: a part to send with no file snapshot")))
        }
        let digest = PreparedDigest.reuse(
            record.s3.prepared.removeValue(forKey: part), for: region, algorithm: algorithm.digest)
        withChecksum(digest, id, attempt: number) { checksum in send(.file(region), checksum) }
    }

    /// The bytes of a part, in the file as it was when the upload began.
    private static func partRegion(_ machine: S3MultipartStateMachine, _ range: Range<Int64>) -> FileRegion? {
        guard let file = machine.upload?.file else { return nil }
        return FileRegion(
            path: machine.path, field: "", offset: range.lowerBound, length: Int64(range.count), snapshot: file)
    }

    func s3Callbacks(
        _ id: TaskID, attempt number: Int, part: Int?,
        completed: @escaping @Sendable (HTTPTransport.Outcome) -> Void
    ) -> HTTPTransport.Callbacks {
        let progress: @Sendable (Int64) -> Void = { bytes in
            guard let part else { return }
            self.queue.async { self.s3Progress(id, attempt: number, part: part, bytes: bytes) }
        }
        return HTTPTransport.Callbacks(
            progress: progress, bodySent: progress, responseStarted: { _ in },
            completed: { outcome in self.queue.async { completed(outcome) } })
    }

    /// Bytes the server confirmed, and those of the parts under way.
    private static func s3Sent(_ record: TaskRecord) -> Int64 {
        (record.s3.machine?.offset ?? 0) + record.s3.inFlight.values.reduce(0, +)
    }

    private func s3Progress(_ id: TaskID, attempt number: Int, part: Int, bytes: Int64) {
        guard isCurrent(id, attempt: number), let record = records[id] else { return }
        record.s3.inFlight[part] = bytes
        updateProgress(record, sent: Self.s3Sent(record))
        emit(.progress(record.snapshot))
    }

    private func s3Answered(
        _ id: TaskID, attempt number: Int, _ exchange: S3MultipartStateMachine.Exchange,
        outcome: HTTPTransport.Outcome, checksum: (S3Checksum, String)?
    ) {
        guard isCurrent(id, attempt: number), let record = records[id], record.s3.machine != nil else { return }
        let event: S3MultipartStateMachine.Event
        switch outcome.result {
        case .failure(let failure):
            event = .failed(exchange, .transport(failure))
        case .success(let response) where !(200..<300).contains(response.status):
            record.lastRetryAfter = outcome.retryAfter
            event = .failed(exchange, Self.fault(response))
        case .success(let response):
            event = Self.event(for: exchange, response: response, checksum: checksum)
            // The task's answer: the completion's, or the object's when a lost
            // completion turns out to have gone through.
            if case .complete = exchange { record.lastAnswer = response }
            if case .headObject = exchange { record.lastAnswer = response }
        }
        if case .uploadPart(_, let part, _) = exchange { record.s3.inFlight[part] = nil }
        performS3(id, attempt: number, handleS3(record, event))
        // Hash the next parts while these are on the wire.
        prepareS3Digests(id)
        // A part that was not followed by another freed its slot.
        pump()
    }

    // MARK: - Request slots

    /// More request slots are free: the machine may send more parts.
    func partSlotsFreed(_ id: TaskID, attempt number: Int) {
        guard let record = records[id] else { return }
        performS3(id, attempt: number, handleS3(record, .slotsFreed))
    }

    /// Hands an event to a task's multipart machine with its allowance:
    /// the slots the other tasks and the queue leave it, one at least. A
    /// start counts the task among the multipart uploads.
    private func handleS3(_ record: TaskRecord, _ event: S3MultipartStateMachine.Event) -> S3MultipartStateMachine.Step
    {
        let id = record.snapshot.id
        if case .start = event, !tasksSharingSlots.contains(id) { tasksSharingSlots.append(id) }
        let others = index.running - 1 + extraSlots(except: id) + index.queuedCount
        record.s3.machine!.allowance = max(1, concurrency - others)
        return record.s3.machine!.handle(event)
    }

    /// MD5s of the parts the machine will ask for next, computed ahead.
    private func prepareS3Digests(_ id: TaskID) {
        guard let record = records[id], let machine = record.s3.machine, let upload = machine.upload else { return }
        let done = Set(upload.parts.map(\.number)).union(record.s3.inFlight.keys)
        for number in 1...upload.partCount where !done.contains(number) && record.s3.prepared[number] == nil {
            guard record.s3.prepared.count < machine.concurrency,
                let region = Self.partRegion(machine, upload.range(ofPart: number))
            else { break }
            record.s3.prepared[number] = PreparedDigest(region, algorithm: upload.checksumAlgorithm.digest)
        }
    }

    /// `offset`: the bytes the server holds, when the multipart driver does not know (a PutObject).
    func finishS3(
        _ id: TaskID, attempt number: Int, _ result: Result<UploadResponse?, UploadFailure>, offset: Int64? = nil,
        recheck: Bool = false
    ) {
        guard let record = records[id] else { return }
        record.s3.inFlight = [:]
        record.s3.prepared = [:]
        finishResumable(id, attempt: number, result, offset: offset ?? record.s3.machine?.offset ?? 0, recheck: recheck)
    }
}
