import Dispatch
import FormData
import Foundation
import NIOConcurrencyHelpers
import Receiver
import TestSupport
import Testing

@testable import UploadEngine

/// Records every event an engine sends, for assertions after the fact.
final class EventLog: UploadEventMonitor, @unchecked Sendable {
    let queue = DispatchQueue(label: "test.events")
    private let lock = NIOLock()
    private var events: [UploadEvent] = []
    /// When each event arrived, for rates.
    private var arrivals: [ContinuousClock.Instant] = []

    func handle(_ event: UploadEvent) {
        let now = ContinuousClock.now
        lock.withLock {
            events.append(event)
            arrivals.append(now)
        }
    }

    /// Waits for events already sent to be delivered, then returns them.
    func all() -> [UploadEvent] {
        queue.sync {}
        return lock.withLock { events }
    }

    func snapshots(of id: TaskID) -> [TaskSnapshot] {
        all().compactMap(\.snapshot).filter { $0.id == id }
    }

    /// The bytes `id` had sent at each of its events, and when the event arrived.
    func progress(of id: TaskID) -> [(at: ContinuousClock.Instant, bytes: Int64)] {
        queue.sync {}
        return lock.withLock {
            zip(events, arrivals).compactMap { event, at in
                guard let snapshot = event.snapshot, snapshot.id == id else { return nil }
                return (at, snapshot.progress.bytesSent)
            }
        }
    }
}

/// A Receiver on an ephemeral loopback port, with an engine whose events are logged.
struct Harness {
    let receiver: Receiver
    let engine: UploadEngine
    let events: EventLog
    let files: TemporaryDirectory
    let saved: TemporaryDirectory

    var url: String { receiver.baseURL + "/upload" }

    static func run<T>(
        concurrency: Int = 4,
        fileSending: FileSending = .automatic,
        insecure: Bool = false,
        configure: (inout ReceiverConfiguration) -> Void = { _ in },
        filesIn filesParent: String = "/tmp",
        keepsFinishedTasks: Bool = true,
        digestsSentFiles: Bool = false,
        _ body: (Harness) async throws -> T
    ) async throws -> T {
        let saved = TemporaryDirectory()
        var configuration = ReceiverConfiguration(directory: saved.path)
        configuration.allowsTestKnobs = true
        configure(&configuration)
        let receiver = Receiver(configuration: configuration)
        try await receiver.start()
        let events = EventLog()
        let engine = UploadEngine(
            configuration: .init(
                concurrency: concurrency, insecure: insecure, environment: [:], fileSending: fileSending,
                keepsFinishedTasks: keepsFinishedTasks, digestsSentFiles: digestsSentFiles),
            monitors: [events])
        let files = TemporaryDirectory(in: filesParent)
        let harness = Harness(receiver: receiver, engine: engine, events: events, files: files, saved: saved)
        do {
            let result = try await body(harness)
            await engine.shutdown()
            await receiver.stop()
            return result
        } catch {
            await engine.shutdown()
            await receiver.stop()
            throw error
        }
    }

    func finish(_ id: TaskID) async throws -> TaskSnapshot {
        try #require(await engine.result(of: id))
    }
}

/// Quick retries so tests do not sleep.
let fastRetry = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))

func received(_ snapshot: TaskSnapshot) throws -> ReceivedUpload {
    let response = try #require(snapshot.response, "no response: \(snapshot.state)")
    return try JSONDecoder().decode(ReceivedUpload.self, from: Data(response.body))
}

/// Progress within each attempt never goes backwards and never passes the total.
func expectMonotonicProgress(_ snapshots: [TaskSnapshot], sourceLocation: SourceLocation = #_sourceLocation) {
    var last: [Int: Int64] = [:]
    for snapshot in snapshots {
        let progress = snapshot.progress
        if let total = progress.totalBytes {
            #expect(progress.bytesSent <= total, sourceLocation: sourceLocation)
        }
        #expect(
            progress.bytesSent >= last[progress.attempt, default: 0], "attempt \(progress.attempt) went backwards",
            sourceLocation: sourceLocation)
        last[progress.attempt] = progress.bytesSent
    }
}

/// Descriptors of this process that point at `path`.
func openDescriptors(to path: String) -> [String] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return entries.filter {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path
    }
}

/// Mappings of `path` in this process (a mapped slice of an upload).
func mappings(of path: String) -> Int {
    let maps = FileHandle(forReadingAtPath: "/proc/self/maps").map { $0.readDataToEndOfFile() } ?? Data()
    return String(decoding: maps, as: UTF8.self).split(separator: "\n").filter { $0.hasSuffix(" " + path) }.count
}

/// Established TCP connections whose remote end is `port` on this machine.
/// Counted from /proc/net rather than our descriptor table, which tests
/// running in parallel in this process change at any moment.
func establishedConnections(toPort port: Int) -> Int {
    ["/proc/net/tcp", "/proc/net/tcp6"].reduce(0) { count, table in
        // /proc files report size 0, so read them to the end rather than by their stat size.
        let data = FileHandle(forReadingAtPath: table).map { $0.readDataToEndOfFile() } ?? Data()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst()
        return count
            + lines.filter { line in
                let columns = line.split(separator: " ")
                guard columns.count > 3, let remotePort = columns[2].split(separator: ":").last else { return false }
                return Int(remotePort, radix: 16) == port && columns[3] == "01"
            }.count
    }
}
