import Crypto
import Foundation
import Receiver
import TestSupport
import Testing

/// The `hoist` binary built next to this test bundle.
let hoistBinary: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("hoist").path
}()

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs a program to completion, feeding its stdin from `input` when given.
/// The blocking waits happen on a Dispatch thread, never on Swift's
/// cooperative pool, which the in-process Receiver needs.
func run(
    _ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String]? = nil,
    input: (@Sendable (FileHandle) -> Void)? = nil
) async throws -> RunResult {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result {
                try runBlocking(executable, arguments, directory: directory, environment: environment, input: input)
            })
        }
    }
}

private func runBlocking(
    _ executable: String, _ arguments: [String], directory: String?, environment: [String: String]?,
    input: (@Sendable (FileHandle) -> Void)?
) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    let inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
    try process.run()
    let collectedOut = Collected()
    let collectedErr = Collected()
    let group = DispatchGroup()
    for (pipe, sink) in [(out, collectedOut), (err, collectedErr)] {
        group.enter()
        DispatchQueue.global().async {
            sink.data = readAll(pipe.fileHandleForReading.fileDescriptor)
            group.leave()
        }
    }
    if let input {
        input(inPipe.fileHandleForWriting)
        try? inPipe.fileHandleForWriting.close()
    }
    group.wait()
    process.waitUntilExit()
    return RunResult(
        status: process.terminationStatus,
        stdout: String(decoding: collectedOut.data, as: UTF8.self),
        stderr: String(decoding: collectedErr.data, as: UTF8.self))
}

/// Reads a descriptor to its end, retrying on EINTR.
private func readAll(_ fd: Int32) -> [UInt8] {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return data }
        data += buffer[0..<count]
    }
}

private final class Collected: @unchecked Sendable {
    var data: [UInt8] = []
}

func hoist(_ arguments: [String], input: (@Sendable (FileHandle) -> Void)? = nil) async throws -> RunResult {
    try await run(hoistBinary, arguments, input: input)
}

/// A Receiver on an ephemeral port for the duration of `body`.
func withReceiver<T>(configure: (inout ReceiverConfiguration) -> Void = { _ in }, _ body: (Receiver, TemporaryDirectory) async throws -> T) async throws -> T {
    let saved = TemporaryDirectory()
    var configuration = ReceiverConfiguration(directory: saved.path)
    configure(&configuration)
    let receiver = Receiver(configuration: configuration)
    try await receiver.start()
    do {
        let result = try await body(receiver, saved)
        await receiver.stop()
        return result
    } catch {
        await receiver.stop()
        throw error
    }
}

func decode(_ text: String) throws -> ReceivedUpload {
    try JSONDecoder().decode(ReceivedUpload.self, from: Data(text.utf8))
}

func sha256(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}

func jsonObject(_ line: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

/// SHA-256 over chunks written from another thread.
final class LockedHasher: @unchecked Sendable {
    private var state = SHA256()
    private let lock = NSLock()
    func update(_ bytes: [UInt8]) { lock.withLock { state.update(data: bytes) } }
    var hex: String { lock.withLock { state.finalize().map { String(format: "%02x", $0) }.joined() } }
}
