import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import Receiver
import UploadEngine
import UploadPlan

/// `hoist receive`: the embedded receiver as a real server, one log line per request.
struct ReceiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Run a local upload receiver that saves files and answers JSON."
    )

    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "Where received files are saved.")
    var dir: String = "./received"

    @Option(
        help: ArgumentHelp(
            "Require Authorization: Bearer TOKEN on every request (else HOIST_RECEIVE_TOKEN, which stays out of ps).",
            valueName: "token"))
    var token: String?

    @Option(
        name: .customLong("allow-origin"),
        help: ArgumentHelp(
            "Accept requests from web pages of this origin (repeatable; * for any). Others get 403.",
            valueName: "origin"))
    var allowOrigin: [String] = []

    @Option(
        name: .customLong("max-body"),
        help: ArgumentHelp("Answer 413 to bodies larger than this many bytes (default 4 GiB).", valueName: "bytes"))
    var maxBody: Int64 = 4 << 30

    @Option(
        name: .customLong("max-parts"),
        help: ArgumentHelp("Answer 413 to a form of more parts (default 1000).", valueName: "N"))
    var maxParts: Int = 1_000

    @Option(
        name: .customLong("max-fields-size"),
        help: ArgumentHelp(
            "Answer 413 when a form's text fields, held in memory, pass this many bytes together (default 16 MiB).",
            valueName: "bytes"))
    var maxFieldsSize: Int = 16 << 20

    @Option(
        name: .customLong("head-timeout"),
        help: ArgumentHelp(
            "Answer 408 and close when a connection's first request head is not in within this time (default 20).",
            valueName: "seconds"),
        transform: TargetValue.seconds)
    var headTimeout: Duration = .seconds(20)

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Answer 408 to a body with no bytes for this long; close kept-alive connections idle as long (default 60).",
            valueName: "seconds"),
        transform: TargetValue.seconds)
    var idleTimeout: Duration = .seconds(60)

    @Option(
        name: .customLong("fail-first"),
        help: ArgumentHelp("Answer the first N requests with 503 and Retry-After.", valueName: "N"))
    var failFirst: Int = 0

    @Flag(name: .customLong("no-tus"), help: "Do not serve tus resumable uploads at /files.")
    var noTus = false

    @Flag(
        name: .customLong("no-gcs"),
        help: "Do not serve Google Cloud Storage resumable uploads at /upload/storage/v1/b/BUCKET/o.")
    var noGCS = false

    @Option(
        name: .customLong("tus-expire"),
        help: ArgumentHelp(
            "Forget an unfinished tus upload this many seconds after its last PATCH.", valueName: "seconds"))
    var tusExpire: Int?

    @Flag(
        name: .customLong("test-knobs"),
        help: "Honour per-request query knobs (?status=, ?delay=, ?stall=, ?json=, ?reply=, ?early=), for tests.")
    var testKnobs = false

    @Option(
        name: .customLong("read-rate"),
        help: ArgumentHelp(
            "Read request bodies at most this fast, to watch progress: bytes per second, K M G binary (e.g. 8M).",
            valueName: "rate"),
        transform: { text in try ReceiveCommand.rate(text) })
    var readRate: Int? = nil

    /// One reading of `--read-rate` for `receive` and `demo`.
    static func rate(_ text: String) throws -> Int? {
        do { return try TargetValue.readRate(text) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        var configuration = ReceiverConfiguration(directory: dir)
        configuration.host = host
        configuration.port = port
        configuration.maxBodySize = maxBody
        configuration.maxParts = maxParts
        configuration.maxTotalFieldBytes = maxFieldsSize
        configuration.headTimeout = headTimeout
        configuration.idleTimeout = idleTimeout
        configuration.failFirst = failFirst
        configuration.readBytesPerSecond = readRate
        configuration.allowsTestKnobs = testKnobs
        configuration.token =
            token
            ?? ProcessInfo.processInfo.environment["HOIST_RECEIVE_TOKEN"].flatMap {
                $0.isEmpty ? nil : $0
            }
        configuration.allowedOrigins = allowOrigin
        configuration.tusPath = noTus ? nil : "/files"
        if let tusExpire { configuration.tusExpiration = .seconds(tusExpire) }
        configuration.servesGCS = !noGCS
        let receiver = Receiver(configuration: configuration) { entry in
            printLine(entry.line)
        }
        do {
            try await receiver.start()
        } catch {
            throw BadInput("cannot listen on \(host):\(port): \(error)")
        }
        printLine("hoist receive: listening on \(receiver.baseURL), saving to \(dir) (Ctrl-C stops)")
        if !FileSending.isLoopback(host) {
            let who =
                configuration.token == nil
                ? "anyone who can reach this machine can write files here: give --token"
                : "every request needs the token"
            printError("hoist receive: warning: listening on \(host), reachable from other machines; \(who)")
        }
        if let path = configuration.tusPath {
            printLine("hoist receive: tus uploads at \(receiver.baseURL)\(path) (resumable; hoist send --tus)")
        }
        if configuration.servesGCS {
            printLine(
                "hoist receive: Cloud Storage resumable uploads at \(receiver.baseURL)/upload/storage/v1/b/BUCKET/o"
                    + "?uploadType=resumable (saved as BUCKET/NAME)")
        }
        await waitForSignal()
        await receiver.stop()
    }

    private func waitForSignal() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let interrupt = Interrupt { continuation.yield() }
        for await _ in stream { break }
        interrupt.cancel()
    }
}
