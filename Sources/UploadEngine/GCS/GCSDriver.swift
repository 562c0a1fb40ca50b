import Dispatch
import FormData
import FoundationEssentials
import WireRules

/// A GCS task's driver (`TransferDriver`): its state machine, the chunk
/// under way, and the file's CRC-32C, read while the chunks go. Retries,
/// backoff, pause and the journal are the engine's.
final class GCSDriver: TransferDriver {
    var machine: GCSUploadStateMachine?
    var checksum: FileCRC32C?
    /// An earlier run's session this task will not go on with.
    var abandoned: String?
    /// The service account's access token, when the settings name one.
    var token: String?

    var holdsUpload: Bool { machine?.session != nil }

    func start(_ id: TaskID, attempt number: Int, on engine: UploadEngine) {
        guard let record = engine.records[id], let settings = record.sending.transfer.gcs else { return }
        guard case .rawFile(let path, _) = record.sending.body else {
            return finish(
                id, attempt: number, .failure(.other("a GCS upload sends one file, not standard input")), on: engine)
        }
        let file: FileSnapshot
        do {
            file = try FileRegion.wholeFile(path: path, field: "").snapshot
        } catch {
            return finish(id, attempt: number, .failure(.input(error)), on: engine)
        }
        if machine == nil {
            machine = GCSUploadStateMachine(settings: settings, checkpoint: record.snapshot.checkpoint)
        }
        if let abandoned {
            cancelSession(abandoned, request: record.sending, on: engine)
            self.abandoned = nil
        }
        if checksum == nil { checksum = FileCRC32C(path: path, snapshot: file) }
        engine.beginResumable(record, attempt: number, totalBytes: file.size, offset: machine!.offset)
        guard let key = settings.serviceAccount else {
            return perform(id, attempt: number, machine!.handle(.start(file: file)), path: path, on: engine)
        }
        authorize(key, id, attempt: number, on: engine) { driver in
            driver.perform(id, attempt: number, driver.machine!.handle(.start(file: file)), path: path, on: engine)
        }
    }

    func discard(_ record: TaskRecord, on engine: UploadEngine) {
        if let session = machine?.session { cancelSession(session.sessionURL, request: record.sending, on: engine) }
        machine = nil
        record.snapshot.checkpoint = nil
    }

    func abandon(_ checkpoint: TransferCheckpoint) {
        abandoned = checkpoint.gcs?.sessionURL
    }

    func release(
        _ checkpoint: TransferCheckpoint, of request: UploadRequest, on engine: UploadEngine,
        done: @escaping @Sendable (Result<String, Unreleased>) -> Void
    ) {
        guard let session = checkpoint.gcs?.sessionURL else { return done(.success("nothing was held on the server")) }
        _ = engine.transport.exchange(
            method: "DELETE", url: session, headers: headers(request, []), body: nil, timeouts: request.timeouts,
            callbacks: engine.releaseCallbacks { result in
                switch result {
                case .success(let answer) where [200, 204, 404, 410, 499].contains(answer.status):
                    done(.success("the GCS upload session was cancelled"))
                case .success(let answer):
                    done(
                        .failure(
                            Unreleased(
                                "the server refused to cancel the GCS upload session: HTTP \(answer.status)"
                                    + (GCSUploadStateMachine.message(answer.body).map { ": " + $0 } ?? ""))))
                case .failure(let failure):
                    done(.failure(Unreleased("cannot cancel the GCS upload session: \(failure)")))
                }
            })
    }

    /// A `DELETE` of the session: GCS answers 499 and forgets it.
    private func cancelSession(_ url: String, request: UploadRequest, on engine: UploadEngine) {
        _ = engine.transport.exchange(
            method: "DELETE", url: url, headers: headers(request, []), body: nil, timeouts: request.timeouts,
            callbacks: engine.cleanupCallbacks())
    }

    private func perform(
        _ id: TaskID, attempt number: Int, _ step: GCSUploadStateMachine.Step, path: String, on engine: UploadEngine
    ) {
        guard engine.isCurrent(id, attempt: number), let record = engine.records[id], let machine else { return }
        if let abandoned = step.abandoned { cancelSession(abandoned, request: record.sending, on: engine) }
        if let note = step.note { record.snapshot.note = note }
        record.snapshot.resumedFrom = machine.resumedFrom
        if step.sessionLost {
            record.snapshot.checkpoint = nil
            record.meter.rebase(bytes: 0, at: .now)
            engine.updateProgress(record, sent: 0)
            engine.emit(.stateChanged(record.snapshot))
        }
        if let checkpoint = step.checkpoint {
            if step.exchange?.kind != .chunk || machine.resumedFrom != nil {
                record.meter.rebase(bytes: checkpoint.offset, at: .now)
            }
            engine.saveCheckpoint(TransferCheckpoint(checkpoint), of: record, sent: checkpoint.offset)
        } else if step.note != nil {
            engine.emit(.stateChanged(record.snapshot))
        }
        if let exchange = step.exchange { send(exchange, id, attempt: number, path: path, on: engine) }
        switch step.end {
        case .done?: verify(id, attempt: number, on: engine)
        case .fail(let failure, let recheck)?:
            finish(id, attempt: number, .failure(failure), recheck: recheck, on: engine)
        case nil: break
        }
    }

    private func send(
        _ exchange: GCSUploadStateMachine.Exchange, _ id: TaskID, attempt number: Int, path: String,
        on engine: UploadEngine
    ) {
        guard let record = engine.records[id], let parent = record.attempt, let machine else { return }
        let request = record.sending
        let settings = machine.settings
        let callbacks = callbacks(id, attempt: number, path: path, on: engine)
        let body: RequestBody
        switch exchange.kind {
        case .begin:
            let metadata = JSONValue.object([
                .init("name", .string(settings.object)), .init("contentType", .string(settings.contentType)),
            ])
            body = RequestBody(
                contentType: "application/json; charset=UTF-8", segments: [.bytes(Array(metadata.compactJSON.utf8))])
        case .status:
            body = RequestBody(contentType: settings.contentType, segments: [])
        case .media, .chunk:
            guard let chunk = exchange.chunk, let file = machine.session?.file ?? FileSnapshot(path: path) else {
                return callbacks.fail(.other("\(path) cannot be read"))
            }
            let region = FileRegion(
                path: path, field: "", offset: chunk.lowerBound, length: Int64(chunk.count), snapshot: file)
            body = RequestBody(contentType: settings.contentType, segments: chunk.isEmpty ? [] : [.file(region)])
        }
        let headers = headers(request, exchange.headers)
        guard exchange.isLast, let checksum else {
            parent.adopt(
                engine.transport.exchange(
                    method: exchange.method, url: exchange.url, headers: headers, body: body,
                    timeouts: request.timeouts, callbacks: callbacks))
            return
        }
        // The last bytes carry the whole file's checksum: GCS refuses the
        // object (400) rather than keep bytes that differ from the file.
        checksum.whenReady(on: engine.queue) { result in
            guard engine.isCurrent(id, attempt: number) else { return }
            guard case .success(let crc) = result else {
                if case .failure(let failure) = result { callbacks.fail(failure) }
                return
            }
            parent.adopt(
                engine.transport.exchange(
                    method: exchange.method, url: exchange.url,
                    headers: headers + [HeaderField("x-goog-hash", "crc32c=" + CRC32C(value: crc).base64)], body: body,
                    timeouts: request.timeouts, callbacks: callbacks))
        }
    }

    /// The user's headers (Authorization), then the protocol's.
    private func headers(_ request: UploadRequest, _ own: [HeaderField]) -> [HeaderField] {
        let names = Set(own.map { $0.name.lowercased() } + ["content-type", "content-range"])
        var headers = request.headers.filter { !names.contains($0.name.lowercased()) }
        if let token, !headers.contains(where: { $0.name.lowercased() == "authorization" }) {
            headers.append(HeaderField("Authorization", "Bearer " + token))
        }
        return headers + own
    }

    private func callbacks(_ id: TaskID, attempt number: Int, path: String, on engine: UploadEngine)
        -> HTTPTransport.Callbacks
    {
        let progress: @Sendable (Int64) -> Void = { bytes in
            engine.queue.async {
                guard engine.isCurrent(id, attempt: number), let record = engine.records[id],
                    let driver = record.driver as? GCSDriver, let machine = driver.machine
                else { return }
                engine.updateProgress(record, sent: machine.offset + bytes)
                engine.emit(.progress(record.snapshot))
            }
        }
        return HTTPTransport.Callbacks(
            progress: progress, bodySent: progress, responseStarted: { _ in },
            completed: { outcome in
                engine.queue.async {
                    guard engine.isCurrent(id, attempt: number), let record = engine.records[id],
                        let driver = record.driver as? GCSDriver, driver.machine != nil
                    else { return }
                    driver.answered(outcome, record, attempt: number, path: path, on: engine)
                }
            })
    }

    private func answered(
        _ outcome: HTTPTransport.Outcome, _ record: TaskRecord, attempt number: Int, path: String,
        on engine: UploadEngine
    ) {
        let step: GCSUploadStateMachine.Step
        switch outcome.result {
        case .success(let answer):
            record.lastAnswer = answer
            record.lastRetryAfter = outcome.retryAfter
            step = machine!.handle(.answered(status: answer.status, headers: answer.headers, body: answer.body))
        case .failure(let failure):
            step = machine!.handle(.failed(failure))
        }
        perform(record.snapshot.id, attempt: number, step, path: path, on: engine)
    }

    /// The object GCS answered with is the file: its size, and its CRC-32C.
    private func verify(_ id: TaskID, attempt number: Int, on engine: UploadEngine) {
        guard let record = engine.records[id], let answer = record.lastAnswer else {
            return finish(id, attempt: number, .success(nil), on: engine)
        }
        let length = record.snapshot.progress.totalBytes ?? 0
        guard case .json(let object) = answer.content else {
            return finish(id, attempt: number, .success(answer), on: engine)
        }
        if case .string(let size)? = object[path: "size"], Int64(size) != length {
            return finish(
                id, attempt: number,
                .failure(.protocolError("GCS stored \(size) bytes of the \(length)-byte file")), on: engine)
        }
        guard case .string(let stored)? = object[path: "crc32c"], let checksum else {
            return finish(id, attempt: number, .success(answer), on: engine)
        }
        checksum.whenReady(on: engine.queue) { result in
            guard engine.isCurrent(id, attempt: number), let driver = engine.records[id]?.driver as? GCSDriver
            else { return }
            switch result {
            case .success(let crc) where CRC32C(value: crc).base64 == stored:
                driver.finish(id, attempt: number, .success(answer), on: engine)
            case .success(let crc):
                driver.finish(
                    id, attempt: number,
                    .failure(
                        .protocolError(
                            "the object GCS stored differs from the file: its crc32c is \(stored), the file's \(CRC32C(value: crc).base64)"
                        )), on: engine)
            case .failure(let failure):
                driver.finish(id, attempt: number, .failure(failure), on: engine)
            }
        }
    }

    private func finish(
        _ id: TaskID, attempt number: Int, _ result: Result<UploadResponse?, UploadFailure>, recheck: Bool = false,
        on engine: UploadEngine
    ) {
        if case .failure = result, machine?.session == nil { checksum = nil }
        engine.finishResumable(id, attempt: number, result, offset: machine?.offset ?? 0, recheck: recheck)
    }
}
