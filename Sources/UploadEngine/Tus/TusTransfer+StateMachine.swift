import FormData
import WireRules

/// A tus task's whole transfer, with no I/O: one upload
/// (`TusUploadStateMachine`), or with `parallelParts` N and a server that
/// offers concatenation, N partial uploads sent at once, each on its own
/// lane, then joined by a final `POST` (`Upload-Concat: final;…`).
struct TusTransferStateMachine: Sendable {
    /// An exchange to send, and the lane whose answer it is: a part's
    /// index, or `control` for `OPTIONS` and the final concatenation.
    struct Send: Sendable, Hashable {
        var lane: Int
        var exchange: TusExchange
    }

    enum End: Sendable, Hashable {
        case done
        case fail(UploadFailure)
    }

    struct Step: Sendable, Hashable {
        var checkpoint: TransferCheckpoint?
        var note: String?
        var sends: [Send] = []
        var end: End?
    }

    enum Event: Sendable {
        /// `file` is nil for standard input.
        case start(file: FileSnapshot?)
        case answered(lane: Int, status: Int, headers: [HeaderField], seconds: Double? = nil)
        case failed(lane: Int, UploadFailure)
    }

    static let control = -1

    let endpoint: String
    let path: String
    let metadata: [HeaderField]
    let settings: TusSettings
    private(set) var single: TusUploadStateMachine?
    private(set) var parts: [TusUploadStateMachine] = []
    private var ranges: [Range<Int64>] = []
    private var finalURL: String?
    private var server: TusServerCapabilities?
    private var file: FileSnapshot?
    /// The control lane's exchange under way.
    private var pendingControl: TusExchange?
    /// An attempt that failed ignores the answers of its other lanes.
    private var ended = false

    init(
        endpoint: String, path: String, settings: TusSettings, checkpoint: TransferCheckpoint?, isStream: Bool = false
    ) {
        self.endpoint = endpoint
        self.path = path
        self.metadata = settings.metadata
        self.settings = settings
        if isStream {
            // Parts need lengths; a stream has none until it ends.
            single = TusUploadStateMachine(
                endpoint: endpoint, path: path, metadata: metadata, settings: settings, checkpoint: nil, isStream: true)
            return
        }
        if let saved = checkpoint?.tus {
            single = machine(checkpoint: saved)
        } else if let saved = checkpoint?.tusParts {
            ranges = saved.ranges
            finalURL = saved.finalURL
            parts = zip(saved.ranges, saved.parts).map { machine(checkpoint: $1, part: $0) }
        } else if settings.parallelParts <= 1 {
            // Another kind's checkpoint is no tus upload's: this one starts anew.
            single = machine(checkpoint: nil)
        }
    }

    private func machine(checkpoint: TusCheckpoint?, part: Range<Int64>? = nil) -> TusUploadStateMachine {
        TusUploadStateMachine(
            endpoint: endpoint, path: path, metadata: metadata, settings: settings, checkpoint: checkpoint, part: part,
            server: server)
    }

    var isStream: Bool { single?.isStream ?? false }

    /// Standard input ended at `length` bytes.
    mutating func streamEnded(at length: Int64) {
        single?.streamEnded(at: length)
    }

    /// The file as it was when the upload was created: chunks are read against it.
    var checkpointFile: FileSnapshot? {
        single?.upload?.file ?? parts.lazy.compactMap { $0.upload?.file }.first
    }

    /// The lane's chunks after `chunk` (a `PATCH`'s, or the one a creation
    /// carries) and their checksum's algorithm, to hash while `chunk` is on the wire.
    func digestsAhead(after chunk: Range<Int64>, lane: Int) -> [(chunk: Range<Int64>, algorithm: TusChecksumAlgorithm)]
    {
        guard let upload = single ?? (parts.indices.contains(lane) ? parts[lane] : nil),
            let algorithm = upload.checksumAlgorithm
        else { return [] }
        return upload.chunks(following: chunk).map { ($0, algorithm) }
    }

    /// Bytes the server holds, over every part.
    var offset: Int64 { single?.offset ?? parts.reduce(0) { $0 + $1.offset } }

    /// Where the attempt went on from, when not from 0.
    var resumedFrom: Int64? {
        if let single { return single.resumedFrom }
        let resumed = parts.compactMap(\.resumedFrom)
        return resumed.isEmpty ? nil : resumed.reduce(0, +)
    }

    /// The `DELETE`s that end the upload on the server.
    func terminations() -> [TusExchange] {
        if let single { return single.termination().map { [$0] } ?? [] }
        return parts.compactMap { $0.termination() }
    }

    var checkpoint: TransferCheckpoint? {
        if let single { return single.upload.map { .tus($0) } }
        guard !parts.isEmpty else { return nil }
        return .tusParts(TusPartsCheckpoint(ranges: ranges, parts: parts.map(\.upload), finalURL: finalURL))
    }

    mutating func handle(_ event: Event) -> Step {
        switch event {
        case .start(let current):
            ended = false
            pendingControl = nil
            file = current
            if single != nil { return forward(0, single!.handle(.start(file: current))) }
            if let finalURL {
                // Joined already: only the answer is missing.
                return control(
                    TusExchange(
                        kind: .head, url: finalURL, headers: [HeaderField("Tus-Resumable", "1.0.0")], chunk: nil,
                        checksum: nil))
            }
            guard server != nil else {
                return control(
                    TusExchange(
                        kind: .discover, url: endpoint, headers: [HeaderField("Tus-Resumable", "1.0.0")], chunk: nil,
                        checksum: nil))
            }
            return startParts()
        case .answered(let lane, let status, let headers, let seconds):
            guard !ended else { return Step() }
            if lane == Self.control { return controlAnswered(status: status, headers: headers) }
            let answer = TusUploadStateMachine.Event.answered(status: status, headers: headers, seconds: seconds)
            if single != nil { return forward(0, single!.handle(answer)) }
            guard parts.indices.contains(lane) else { return Step() }
            return forward(lane, parts[lane].handle(answer))
        case .failed(let lane, let failure):
            guard !ended else { return Step() }
            if lane != Self.control {
                if single != nil {
                    _ = single!.handle(.failed(failure))
                } else if parts.indices.contains(lane) {
                    _ = parts[lane].handle(.failed(failure))
                }
            }
            return end(.fail(failure))
        }
    }

    // MARK: - Lanes

    private mutating func forward(_ lane: Int, _ step: TusUploadStateMachine.Step) -> Step {
        var result = Step(checkpoint: step.checkpoint == nil ? nil : checkpoint, note: step.note)
        switch step.next {
        case .send(let exchange): result.sends = [Send(lane: lane, exchange: exchange)]
        case .fail(let failure): return merge(result, end(.fail(failure)))
        case .done:
            if single != nil { return merge(result, end(.done)) }
            if parts.allSatisfy(\.isDone) { return merge(result, join()) }
        }
        return result
    }

    private mutating func startParts() -> Step {
        guard let file else { return end(.fail(.other("tus: no file"))) }
        if parts.isEmpty {
            let count = Int(min(Int64(settings.parallelParts), max(1, file.size / TusUploadStateMachine.smallestChunk)))
            let size = file.size / Int64(count)
            ranges = (0..<count).map { index in
                Int64(index) * size..<(index == count - 1 ? file.size : Int64(index + 1) * size)
            }
            parts = ranges.map { machine(checkpoint: nil, part: $0) }
        }
        var step = Step()
        for lane in parts.indices {
            step = merge(step, forward(lane, parts[lane].handle(.start(file: file))))
            if step.end != nil { return step }
        }
        return step
    }

    /// The final upload: the parts, in order, as one.
    private mutating func join() -> Step {
        let urls = parts.compactMap { $0.upload?.uploadURL }
        var headers = [
            HeaderField("Tus-Resumable", "1.0.0"), HeaderField("Upload-Concat", "final;" + urls.joined(separator: " ")),
        ]
        if !metadata.isEmpty {
            headers.append(HeaderField("Upload-Metadata", TusMetadata.encode(metadata.map { ($0.name, $0.value) })))
        }
        return control(TusExchange(kind: .create, url: endpoint, headers: headers, chunk: nil, checksum: nil))
    }

    private mutating func controlAnswered(status: Int, headers: [HeaderField]) -> Step {
        guard let exchange = pendingControl else { return Step() }
        pendingControl = nil
        let ok = (200..<300).contains(status)
        switch exchange.kind {
        case .discover:
            let tus = ok && headers.value(of: "Tus-Version") != nil
            let capabilities = tus ? TusServerCapabilities(headers: headers) : .assumed
            server = capabilities
            guard capabilities.offers("concatenation") else {
                // Without concatenation, one upload; it asks OPTIONS again itself.
                single = machine(checkpoint: nil)
                var step = forward(0, single!.handle(.start(file: file!)))
                step.note =
                    "the server does not offer tus concatenation, so the file goes as one upload, not \(settings.parallelParts) parts"
                return step
            }
            for index in parts.indices { parts[index] = rebuilt(parts[index]) }
            return startParts()
        case .create:
            guard ok, let location = headers.value(of: "Location"),
                let url = TusUploadStateMachine.resolve(location, against: endpoint)
            else {
                return end(
                    .fail(
                        ok
                            ? .protocolError("the server joined the parts but its answer has no usable Location")
                            : .httpStatus(status, message: "the server refused to join the \(parts.count) parts")))
            }
            finalURL = url
            return merge(Step(checkpoint: checkpoint), end(.done))
        default:
            return ok ? end(.done) : end(.fail(.httpStatus(status, message: nil)))
        }
    }

    /// A part made before the server was known, made again knowing it.
    private func rebuilt(_ part: TusUploadStateMachine) -> TusUploadStateMachine {
        machine(checkpoint: part.upload, part: part.part)
    }

    private mutating func control(_ exchange: TusExchange) -> Step {
        pendingControl = exchange
        return Step(sends: [Send(lane: Self.control, exchange: exchange)])
    }

    private mutating func end(_ end: End) -> Step {
        ended = true
        return Step(end: end)
    }

    private func merge(_ a: Step, _ b: Step) -> Step {
        Step(
            checkpoint: b.checkpoint ?? a.checkpoint, note: b.note ?? a.note, sends: a.sends + b.sends,
            end: b.end ?? a.end)
    }
}
