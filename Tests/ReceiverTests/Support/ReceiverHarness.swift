import Foundation
import NIOConcurrencyHelpers
import TestSupport

@testable import Receiver

/// A receiver on an ephemeral 127.0.0.1 port saving into a fresh temporary directory.
struct ReceiverHarness {
    let receiver: Receiver
    let scratch: TemporaryDirectory
    let log: NIOLockedValueBox<[ReceiverLogEntry]>

    /// Where the receiver saves files.
    var directory: String { receiver.configuration.directory }
    var url: String { receiver.baseURL }

    func saved(_ name: String) -> String { directory + "/" + name }
    var savedFiles: [String] { listing(directory) }
    var entries: [ReceiverLogEntry] { log.withLockedValue { $0 } }
}

/// Starts a receiver, runs `body`, and stops the receiver whatever happens.
func withReceiver(
    _ configure: (inout ReceiverConfiguration) -> Void = { _ in },
    _ body: (ReceiverHarness) async throws -> Void
) async throws {
    let scratch = TemporaryDirectory()
    var configuration = ReceiverConfiguration(directory: scratch.sub("saved"))
    configuration.allowsTestKnobs = true
    configure(&configuration)
    let log = NIOLockedValueBox<[ReceiverLogEntry]>([])
    let receiver = Receiver(configuration: configuration) { entry in
        log.withLockedValue { $0.append(entry) }
    }
    try await receiver.start()
    let harness = ReceiverHarness(receiver: receiver, scratch: scratch, log: log)
    do {
        try await body(harness)
    } catch {
        await receiver.stop()
        throw error
    }
    await receiver.stop()
}
