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
/// A program still running after `timeout` is killed and the test fails.
func run(
    _ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String]? = nil,
    timeout: Duration = .seconds(180), input: (@Sendable (FileHandle) -> Void)? = nil
) async throws -> RunResult {
    let result = try await Subprocess.run(
        executable, arguments, directory: directory, environment: environment, timeout: timeout, input: input)
    if result.timedOut {
        // What it printed before it was killed tells where it stopped.
        let tail = { (bytes: [UInt8]) in String(decoding: bytes.suffix(4000), as: UTF8.self) }
        throw SubprocessError(
            message: """
                \(executable) \(arguments.joined(separator: " ")) ran over \(timeout) and was killed
                stdout: \(tail(result.stdout))
                stderr: \(tail(result.stderr))
                """)
    }
    return RunResult(
        status: result.status,
        stdout: String(decoding: result.stdout, as: UTF8.self),
        stderr: String(decoding: result.stderr, as: UTF8.self))
}

/// Where the tests' `hoist` keeps its state (history), never the user's.
let testStateHome = TemporaryDirectory()

/// This process's environment with the tests' state folder, plus `extra`.
func hoistEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["XDG_STATE_HOME"] = testStateHome.path
    environment.merge(extra) { $1 }
    return environment
}

/// Runs `hoist` with the tests' state folder, plus `environment` on top.
func hoist(
    _ arguments: [String], environment: [String: String] = [:], input: (@Sendable (FileHandle) -> Void)? = nil
) async throws -> RunResult {
    try await run(hoistBinary, arguments, environment: hoistEnvironment(environment), input: input)
}

/// A Receiver on an ephemeral port for the duration of `body`.
func withReceiver<T>(
    configure: (inout ReceiverConfiguration) -> Void = { _ in },
    _ body: (Receiver, TemporaryDirectory) async throws -> T
) async throws -> T {
    let saved = TemporaryDirectory()
    var configuration = ReceiverConfiguration(directory: saved.path)
    configuration.allowsTestKnobs = true
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

func jsonObject(_ line: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

/// SHA-256 over chunks written from another thread.
final class LockedHasher: @unchecked Sendable {
    private var state = SHA256()
    private let lock = NSLock()
    func update(_ bytes: [UInt8]) { lock.withLock { state.update(data: bytes) } }
    var hex: String { lock.withLock { TestSupport.hex(state.finalize()) } }
}
