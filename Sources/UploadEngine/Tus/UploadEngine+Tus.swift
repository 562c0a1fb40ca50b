import Crypto
import Dispatch
import FormData
import FoundationEssentials
import NIOCore
import Synchronization

/// A tus task's attempt, on `queue`: the driver (`TusUploadStateMachine`)
/// says which exchange comes next, the transport sends it, and its answer
/// goes back to the driver, until every byte is on the server or the
/// attempt fails. Each new offset is a checkpoint for the monitors.
extension UploadEngine {
    func startTus(_ id: TaskID, attempt number: Int, driver: TusDriver) {
        guard let record = records[id] else { return }
        let request = record.sending
        guard let settings = request.transfer.tus else { return }
        let file: FileSnapshot?
        switch request.body {
        case .rawFile(let path, _):
            do {
                file = try FileRegion.wholeFile(path: path, field: "").snapshot
            } catch {
                return finishTus(id, attempt: number, .failure(.input(error)))
            }
            if driver.machine == nil {
                driver.machine = TusTransferStateMachine(
                    endpoint: request.url, path: path, settings: settings, checkpoint: record.snapshot.checkpoint)
            }
        case .stream(let source, _):
            file = nil
            if driver.machine == nil {
                driver.machine = TusTransferStateMachine(
                    endpoint: request.url, path: "-", settings: settings, checkpoint: nil, isStream: true)
                record.stream = StreamBuffer(source)
            }
        default:
            return finishTus(id, attempt: number, .failure(.other("a tus upload sends one file as its body")))
        }
        driver.inFlight = [:]
        driver.prepared = [:]
        beginResumable(record, attempt: number, totalBytes: file?.size, offset: driver.machine!.offset)
        perform(id, attempt: number, driver.machine!.handle(.start(file: file)))
    }

    /// Sends `DELETE` for a cancelled tus upload when the server offers
    /// termination, and forgets the upload so a retry creates a new one.
    func terminateTus(_ record: TaskRecord, driver: TusDriver) {
        guard let exchanges = driver.machine?.terminations() else { return }
        driver.machine = nil
        record.snapshot.checkpoint = nil
        let request = record.sending
        for exchange in exchanges {
            _ = transport.exchange(
                method: exchange.method, url: exchange.url, headers: headers(for: exchange, request: request),
                body: nil, timeouts: request.timeouts, callbacks: cleanupCallbacks())
        }
    }

    /// A `DELETE` of each upload a restored task's checkpoint names. Sent
    /// without asking first whether the server offers termination: one that
    /// does not says so in its answer.
    func releaseTus(
        _ checkpoint: TransferCheckpoint, request: UploadRequest,
        done: @escaping @Sendable (Result<String, Unreleased>) -> Void
    ) {
        let urls =
            checkpoint.tus.map { [$0.uploadURL] }
            ?? checkpoint.tusParts.map { parts in
                parts.parts.compactMap { $0?.uploadURL } + [parts.finalURL].compactMap { $0 }
            }
            ?? []
        guard !urls.isEmpty else { return done(.success("nothing was held on the server")) }
        let group = DispatchGroup()
        let problems = Mutex<[String]>([])
        for url in urls {
            let exchange = TusExchange(
                kind: .terminate, url: url, headers: [HeaderField("Tus-Resumable", "1.0.0")], chunk: nil, checksum: nil)
            group.enter()
            _ = transport.exchange(
                method: "DELETE", url: url, headers: headers(for: exchange, request: request), body: nil,
                timeouts: request.timeouts,
                callbacks: releaseCallbacks { result in
                    defer { group.leave() }
                    switch result {
                    case .success(let answer)
                    where (200..<300).contains(answer.status) || [404, 410].contains(answer.status):
                        break
                    case .success(let answer):
                        problems.withLock {
                            $0.append("the server refused to delete \(Secrets.displayURL(url)): HTTP \(answer.status)")
                        }
                    case .failure(let failure):
                        problems.withLock { $0.append("cannot delete \(Secrets.displayURL(url)): \(failure)") }
                    }
                })
        }
        group.notify(queue: queue) {
            let problems = problems.withLock { $0 }
            guard problems.isEmpty else { return done(.failure(Unreleased(problems.joined(separator: "; ")))) }
            done(.success("the tus upload was deleted on the server"))
        }
    }

    /// `answer` names the exchange whose answer led to `step`.
    private func perform(
        _ id: TaskID, attempt number: Int, _ step: TusTransferStateMachine.Step, answer: TusExchange.Kind? = nil
    ) {
        guard isCurrent(id, attempt: number), let record = records[id], let machine = record.tus.machine else { return }
        var changed = false
        if let note = step.note {
            record.snapshot.note = note
            changed = true
        }
        if record.snapshot.resumedFrom != machine.resumedFrom {
            record.snapshot.resumedFrom = machine.resumedFrom
            changed = true
        }
        if let checkpoint = step.checkpoint {
            if answer != .patch { record.meter.rebase(bytes: machine.offset, at: .now) }
            saveCheckpoint(checkpoint, of: record, sent: machine.offset + record.tus.inFlight.values.reduce(0, +))
        } else if machine.checkpoint == nil, record.snapshot.progress.bytesSent > 0 {
            // The server lost the upload: the bar goes back to 0.
            record.snapshot.checkpoint = nil
            record.meter.rebase(bytes: 0, at: .now)
            updateProgress(record, sent: 0)
            emit(.stateChanged(record.snapshot))
        } else if changed {
            emit(.stateChanged(record.snapshot))
        }
        for send in step.sends { self.send(send, id: id, attempt: number) }
        switch step.end {
        case .done?: finishTus(id, attempt: number, .success(record.lastAnswer))
        case .fail(let failure)?: finishTus(id, attempt: number, .failure(failure))
        case nil: break
        }
    }

    private func send(_ send: TusTransferStateMachine.Send, id: TaskID, attempt number: Int) {
        guard let record = records[id], let parent = record.attempt, let machine = record.tus.machine else { return }
        let exchange = send.exchange
        let lane = send.lane
        let request = record.sending
        let headers = headers(for: exchange, request: request)
        let callbacks = callbacks(id, attempt: number, lane: lane, exchange)
        if let stream = record.stream, let chunk = exchange.chunk {
            return sendStreamed(chunk, of: stream, exchange: exchange, callbacks: callbacks, id: id, attempt: number)
        }
        guard let chunk = exchange.chunk, let file = machine.checkpointFile ?? fileSnapshot(record) else {
            parent.adopt(
                transport.exchange(
                    method: exchange.method, url: exchange.url, headers: headers, body: nil,
                    timeouts: request.timeouts, callbacks: callbacks))
            return
        }
        let path = machine.path
        func fileRegion(_ range: Range<Int64>) -> FormData.FileRegion {
            FileRegion(path: path, field: "", offset: range.lowerBound, length: Int64(range.count), snapshot: file)
        }
        let region = fileRegion(chunk)
        let body = RequestBody(contentType: "application/offset+octet-stream", segments: [.file(region)])
        // A checksum goes in a header, before the body: the lane's next
        // chunks are hashed while this one is on the wire (a creation's too).
        var ahead = record.tus.prepared.removeValue(forKey: lane) ?? []
        let prepared = exchange.checksum.map { PreparedDigest.reuse(from: &ahead, for: region, algorithm: $0.digest) }
        var previous = prepared
        record.tus.prepared[lane] = machine.digestsAhead(after: chunk, lane: lane).map { next, algorithm in
            let digest = PreparedDigest.reuse(
                from: &ahead, for: fileRegion(next), algorithm: algorithm.digest, after: previous)
            previous = digest
            return digest
        }
        guard let prepared, let algorithm = exchange.checksum else {
            parent.adopt(
                transport.exchange(
                    method: exchange.method, url: exchange.url, headers: headers, body: body,
                    timeouts: request.timeouts, callbacks: callbacks))
            return
        }
        prepared.whenReady(on: queue) { result in
            let digest: String
            switch result {
            case .success(let ready): digest = ready
            case .failure(let failure): return callbacks.fail(failure)
            }
            guard self.isCurrent(id, attempt: number) else { return }
            let checksum = HeaderField("Upload-Checksum", algorithm.rawValue + " " + digest)
            parent.adopt(
                self.transport.exchange(
                    method: exchange.method, url: exchange.url, headers: headers + [checksum], body: body,
                    timeouts: request.timeouts, callbacks: callbacks))
        }
    }

    /// A chunk of standard input, read off the engine's queue; the one that
    /// ends the stream says the upload's length.
    private func sendStreamed(
        _ range: Range<Int64>, of stream: StreamBuffer, exchange: TusExchange, callbacks: HTTPTransport.Callbacks,
        id: TaskID, attempt number: Int
    ) {
        guard let parent = records[id]?.attempt, let request = records[id]?.sending else { return }
        let headers = headers(for: exchange, request: request)
        DispatchQueue.global().async {
            let chunk: StreamBuffer.Chunk
            do throws(UploadFailure) {
                chunk = try stream.chunk(range)
            } catch {
                return callbacks.fail(error)
            }
            let end = range.lowerBound + Int64(chunk.bytes.count)
            var extra: [HeaderField] = []
            if chunk.isLast { extra.append(HeaderField("Upload-Length", String(end))) }
            if let algorithm = exchange.checksum {
                let digest = StreamingDigest.base64(of: chunk.bytes, algorithm.digest)
                extra.append(HeaderField("Upload-Checksum", algorithm.rawValue + " " + digest))
            }
            let sent = headers + extra
            self.queue.async {
                guard self.isCurrent(id, attempt: number), let record = self.records[id] else { return }
                if chunk.isLast {
                    record.tus.machine?.streamEnded(at: end)
                    record.snapshot.progress.totalBytes = end
                }
                let body = RequestBody(contentType: "application/offset+octet-stream", segments: [.bytes(chunk.bytes)])
                parent.adopt(
                    self.transport.exchange(
                        method: exchange.method, url: exchange.url, headers: sent, body: body,
                        timeouts: request.timeouts, callbacks: callbacks))
            }
        }
    }

    /// The user's headers, then the protocol's (which win over a user's of the same name).
    private func headers(for exchange: TusExchange, request: UploadRequest) -> [HeaderField] {
        let own = Set(exchange.headers.map { $0.name.lowercased() } + ["content-type"])
        return request.headers.filter { !own.contains($0.name.lowercased()) } + exchange.headers
    }

    private func callbacks(_ id: TaskID, attempt number: Int, lane: Int, _ exchange: TusExchange)
        -> HTTPTransport.Callbacks
    {
        let started = ContinuousClock.now
        return HTTPTransport.Callbacks(
            progress: { bytes in self.queue.async { self.tusProgress(id, attempt: number, lane: lane, bytes: bytes) } },
            bodySent: { bytes in self.queue.async { self.tusProgress(id, attempt: number, lane: lane, bytes: bytes) } },
            responseStarted: { _ in },
            completed: { outcome in
                self.queue.async {
                    self.answered(
                        id, attempt: number, lane: lane, kind: exchange.kind, outcome: outcome,
                        seconds: ProgressMeter.seconds(ContinuousClock.now - started))
                }
            }
        )
    }

    private func fileSnapshot(_ record: TaskRecord) -> FileSnapshot? {
        guard case .rawFile(let path, _) = record.sending.body else { return nil }
        return FileSnapshot(path: path)
    }

    private func tusProgress(_ id: TaskID, attempt number: Int, lane: Int, bytes: Int64) {
        guard isCurrent(id, attempt: number), let record = records[id], let machine = record.tus.machine else { return }
        record.tus.inFlight[lane] = bytes
        updateProgress(record, sent: machine.offset + record.tus.inFlight.values.reduce(0, +))
        emit(.progress(record.snapshot))
    }

    private func answered(
        _ id: TaskID, attempt number: Int, lane: Int, kind: TusExchange.Kind, outcome: HTTPTransport.Outcome,
        seconds: Double
    ) {
        guard isCurrent(id, attempt: number), let record = records[id], record.tus.machine != nil else { return }
        record.tus.inFlight[lane] = nil
        let step: TusTransferStateMachine.Step
        switch outcome.result {
        case .success(let response):
            record.lastAnswer = response
            record.lastRetryAfter = outcome.retryAfter
            step = record.tus.machine!.handle(
                .answered(lane: lane, status: response.status, headers: response.headers, seconds: seconds))
        case .failure(let failure):
            step = record.tus.machine!.handle(.failed(lane: lane, failure))
        }
        perform(id, attempt: number, step, answer: kind)
    }

    private func finishTus(_ id: TaskID, attempt number: Int, _ result: Result<UploadResponse?, UploadFailure>) {
        guard let record = records[id] else { return }
        record.tus.inFlight = [:]
        record.tus.prepared = [:]
        finishResumable(id, attempt: number, result, offset: record.tus.machine?.offset ?? 0)
    }
}
