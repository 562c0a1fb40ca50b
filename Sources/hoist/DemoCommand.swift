import ArgumentParser
import FormData
import FoundationEssentials
import Glibc
import Receiver
import TerminalUI
import UploadEngine
import UploadPlan

/// `hoist demo`: the embedded receiver on a free loopback port, sample files
/// (one named `身份证 正面.jpg`, one of 200 MB), and the full-screen UI aimed
/// at the receiver with the files staged and their uploads started; the
/// 200 MB one goes as a resumable tus upload to the receiver's `/files`.
/// Without a terminal (or with `--no-ui`) it runs the same uploads with
/// progress rows.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Open the UI against the embedded receiver, with sample files uploading."
    )

    @Option(
        name: .customLong("large-size"), help: ArgumentHelp("Size of the large sample file in MiB.", valueName: "MiB"))
    var largeSizeMiB: Int = 200

    @Option(
        name: .customLong("read-rate"),
        help: ArgumentHelp(
            "How fast the receiver reads each body, so progress can be watched: bytes per second, K M G binary "
                + "(default 40M; 0: no limit).", valueName: "rate"),
        transform: { text in try ReceiveCommand.rate(text) })
    var readRate: Int? = 40 << 20

    @Flag(name: .customLong("no-ui"), help: "Print progress rows instead of opening the UI.")
    var noUI = false

    @Flag(name: .customLong("no-start"), help: "Stage the sample files without starting their uploads.")
    var noStart = false

    @Flag(name: .customLong("keep"), help: "Keep the sample folder (and what the receiver saved) after the demo.")
    var keep = false

    func run() async throws {
        let folder = try SampleFiles.create(largeSizeMiB: largeSizeMiB)
        // Hundreds of MB of samples and received copies: removed on the way out unless asked for.
        defer { if !keep { try? FileManager.default.removeItem(atPath: folder.path) } }
        var configuration = ReceiverConfiguration(directory: folder.path + "/received")
        configuration.readBytesPerSecond = readRate
        configuration.allowsTestKnobs = true
        let receiver = Receiver(configuration: configuration)
        try await receiver.start()
        // Answers like the verification API Hoist grew from: RETCODE "0000", or "1001" for a blurry photo.
        let url = receiver.baseURL + "/upload?reply=verify"
        let resumable = Self.tusRequest(receiver.baseURL + "/files", path: folder.large)
        // The receiver speaks Cloud Storage's protocol too: the large sample also goes as a GCS object.
        let object = Self.gcsRequest(receiver.baseURL, path: folder.large)
        let status: ExitStatus
        if noUI || isatty(STDIN_FILENO) == 0 || isatty(STDOUT_FILENO) == 0 {
            status = await runWithoutUI(
                url: url, base: receiver.baseURL, folder: folder, resumable: [resumable, object])
        } else {
            let target = Target(
                url: url, expectations: Self.verified.expectations, messagePath: Self.verified.messagePath)
            let entries = [
                FormEntry(kind: .field, name: "user_id", value: "42"),
                FormEntry(kind: .field, name: "side", value: "front"),
                FormEntry(kind: .header, name: "Authorization", value: "Bearer demo-0f8a2c"),
            ]
            status = try await UISession.run(
                target: target, entries: entries,
                files: [folder.front, folder.back] + (noStart ? [folder.large] : []) + folder.others,
                profile: "demo", startDirectory: folder.path,
                configuration: UploadEngine.Configuration(concurrency: 3),
                initialKeys: noStart ? [] : Self.startKeys(others: folder.others.count),
                alsoSend: noStart ? [] : [resumable, object])
        }
        await receiver.stop()
        if keep { printError("hoist demo: the samples and received files are in \(folder.path)") }
        if status != .ok { throw ExitCode(status.rawValue) }
    }

    /// A photo the receiver's `?reply=verify` passed, as the verification API answers.
    static let verified = SuccessRule(
        expectations: [SuccessRule.Expectation(path: "RETCODE", value: "0000")], messagePath: "RETMSG")

    /// The seed flow, pressed as a user would: the two ID-card photos
    /// marked and sent as a chain (front, then back), the mode set back to
    /// one task per file, then the other samples marked and sent each alone.
    static func startKeys(others: Int) -> [Key] {
        let space = Key.character(" ")
        return [space, space, .character("o"), .character("o"), .character("u"), .character("o")]
            + Array(repeating: space, count: others) + [.character("U")]
    }

    /// The large sample as a tus upload: it resumes where it stopped.
    static func tusRequest(_ endpoint: String, path: String) -> UploadRequest {
        UploadRequest(
            url: endpoint, body: .rawFile(path: path), label: baseName(of: path),
            transfer: .tus(
                TusSettings(
                    metadata: [
                        HeaderField("filename", baseName(of: path)), HeaderField("filetype", "application/gzip"),
                    ])))
    }

    /// The large sample as a GCS object, `gs://demo/samples/NAME`, through the receiver.
    static func gcsRequest(_ endpoint: String, path: String) -> UploadRequest {
        let settings = GCSSettings(
            endpoint: endpoint, bucket: "demo", object: "samples/" + baseName(of: path),
            contentType: "application/gzip", keyIsFileName: true)
        return UploadRequest(
            url: settings.sessionURL, method: .post, body: .rawFile(path: path, contentType: settings.contentType),
            label: "GCS: " + baseName(of: path), transfer: .gcs(settings))
    }

    private func runWithoutUI(url: String, base: String, folder: SampleFiles.Folder, resumable: [UploadRequest]) async
        -> ExitStatus
    {
        let kept = keep ? "" : " (removed at the end; --keep keeps them)"
        printLine("Receiver: \(url)  (files are saved in \(folder.path)/received)\nSamples:  \(folder.path)\(kept)")
        // The receiver also speaks Cloud Storage's JSON API, so a gs:// upload is shown with no cloud.
        printLine("GCS:      hoist send gs://demo/NAME -T FILE --endpoint \(base)  (saved in received/demo)\n")
        // The back of the ID card goes only after the front succeeded, as a verification API expects.
        var front = MultipartForm()
        front.append(parameters: ["user": ["id": 42, "side": "front"]])
        front.append(.file("image", path: folder.front))
        var back = MultipartForm()
        back.append(parameters: ["user": ["id": 42, "side": "back"]])
        back.append(.file("image", path: folder.back))
        let requests =
            [
                UploadRequest(url: url, body: .multipart(front), success: Self.verified, label: "身份证 正面.jpg"),
                UploadRequest(url: url, body: .multipart(back), success: Self.verified, label: "身份证 反面.jpg"),
            ] + resumable + [
                UploadRequest(
                    url: url,
                    body: .base64JSON(
                        Base64JSONBody(fileField: "image", path: folder.front, fields: [FormField("user", "42")])),
                    label: "base64 json")
            ]
        let plan = SendPlan(
            requests: requests, after: [nil, 0] + Array(repeating: nil, count: requests.count - 2), concurrency: 3)
        return await SendSession(plan: plan, output: .summary).run()
    }
}

/// Sample files for the demo, in a fresh temporary folder.
enum SampleFiles {
    struct Folder {
        let path: String
        let front: String
        let back: String
        let large: String
        /// More files for the UI's queue: a PDF and a zip with non-ASCII names.
        let others: [String]
    }

    static func create(largeSizeMiB: Int) throws -> Folder {
        var template = Array("/tmp/hoist-demo-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw BadInput("cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func jpeg(_ seed: UInt8) -> [UInt8] {
            [0xFF, 0xD8, 0xFF, 0xE0] + (0..<180_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } + [
                0xFF, 0xD9,
            ]
        }
        let front = try create(path + "/身份证 正面.jpg", jpeg(1))
        let back = try create(path + "/身份证 反面.jpg", jpeg(2))
        let large = try random(
            path + "/build-artifact.tar.gz", mebibytes: max(1, largeSizeMiB), seed: 0x9E37_79B9_7F4A_7C15)
        let contract = try random(path + "/合同 contract-2026.pdf", mebibytes: 24, seed: 7)
        let photos = try random(path + "/photos 📷 2026.zip", mebibytes: 64, seed: 11)
        return Folder(path: path, front: front, back: back, large: large, others: [contract, photos])
    }

    /// A file of pseudo-random bytes: one random MiB, stamped with its
    /// index and written `mebibytes` times, so even a debug build makes 200 MB in a moment.
    private static func random(_ path: String, mebibytes: Int, seed: UInt64) throws -> String {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw BadInput("cannot create \(path)") }
        defer { close(fd) }
        var generator = SplitMix(state: seed)
        var words = (0..<(1 << 17)).map { _ in generator.next() }
        for index in 0..<mebibytes {
            words[0] = UInt64(index)
            _ = words.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        return path
    }

    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static func create(_ path: String, _ bytes: [UInt8]) throws -> String {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw BadInput("cannot create \(path)") }
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return path
    }
}
