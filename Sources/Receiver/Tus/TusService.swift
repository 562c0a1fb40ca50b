import FoundationEssentials
import NIOConcurrencyHelpers

/// The tus endpoint's shared state: where uploads live, the knobs and their counters, and the record of
/// requests tests read through ``Receiver/tusRequests()``. The requests themselves are handled in
/// `TusService+Requests.swift`.
final class TusService: Sendable {
    /// What each failure knob has counted so far; each knob counts the requests it can apply to.
    struct Counters {
        var conflicts = 0
        var checksums = 0
        var resets = 0
        var expiries = 0
    }

    /// The record keeps this many requests, dropping the oldest (a long `hoist receive` must not grow forever).
    static let recordLimit = 100_000

    /// `/files`: no trailing slash.
    let basePath: String
    let store: TusStore
    let knobs: TusKnobs
    /// `Tus-Max-Size`: the receiver's `maxBodySize` bounds whole uploads, not single requests.
    let maxSize: Int64?
    /// How long an unfinished upload lives after its last change, in seconds; nil: for ever.
    let expiration: TimeInterval?
    private let counters = NIOLockedValueBox(Counters())
    private let records = NIOLockedValueBox<[TusRequestRecord]>([])

    init?(configuration: ReceiverConfiguration) {
        guard let path = configuration.tusPath, let basePath = TusRoute.normalizedBasePath(path) else { return nil }
        self.basePath = basePath
        self.store = TusStore(directory: UploadDirectory(path: configuration.directory))
        self.knobs = configuration.tusKnobs
        self.maxSize = configuration.maxBodySize
        self.expiration = configuration.tusExpiration.map { duration in
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    /// When an upload changed now expires.
    func expiry(from now: Date = Date()) -> Date? {
        expiration.map { now.addingTimeInterval($0) }
    }

    func route(_ path: String) -> TusRoute? {
        TusRoute(path: path, basePath: basePath)
    }

    /// The relative URL of an upload, as `Location` and `Upload-Concat` carry it.
    func location(_ id: String) -> String {
        basePath + "/" + id
    }

    /// Counts one more request for a knob; true while the count is within its first `limit`.
    func takeTurn(_ counter: WritableKeyPath<Counters, Int>, limit: Int) -> Bool {
        guard limit > 0 else { return false }
        return counters.withLockedValue { counters in
            defer { counters[keyPath: counter] += 1 }
            return counters[keyPath: counter] < limit
        }
    }

    func append(_ record: TusRequestRecord) {
        records.withLockedValue { records in
            if records.count >= Self.recordLimit { records.removeFirst(records.count - Self.recordLimit + 1) }
            records.append(record)
        }
    }

    var requests: [TusRequestRecord] {
        records.withLockedValue { $0 }
    }
}

extension Receiver {
    /// Every request the tus endpoint handled so far, in the order they were answered (or reset). Empty
    /// when the endpoint is off.
    public func tusRequests() -> [TusRequestRecord] {
        tus?.requests ?? []
    }
}
