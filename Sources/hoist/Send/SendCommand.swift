import ArgumentParser
import FormData
import Glibc
import UploadEngine
import UploadPlan

/// `hoist send URL [options]`: uploads in curl's `-F` syntax, with live
/// progress, JSON results and exit statuses scripts can rely on.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        // Parsed on its own by Hoist.main (see parseCommand), where this
        // names it "hoist send" and skips the completion-script check.
        _superCommandName: "hoist",
        abstract: "Upload files and fields to URL, with curl's -F syntax.",
        discussion: """
            Exit status: 0 when every upload succeeded, 1 when one failed or was \
            cancelled, 2 for bad input (nothing is sent), 130 when interrupted.
            `--json DOC` (DOC starting with { [ " or @) sends a JSON body; `--json` \
            alone prints one JSON object per task on stdout.
            """
    )

    @Argument(
        help: "The URL to send to (http or https); optional with a --profile that has one.", transform: TargetValue.url)
    var url: String?

    @OptionGroup(title: "Target")
    var target: TargetOptions

    @OptionGroup(title: "Request")
    var request: RequestOptions

    @Option(
        name: [.customShort("F"), .customLong("form")],
        help: ArgumentHelp(
            "A form part: name=value, name=@file, name=<file, name=@- (stdin); modifiers ;type= ;filename= ;headers=.",
            valueName: "name=content"))
    var form: [String] = []

    /// Every `-F`, `--form-string` and `--each`, in order, as `ArgumentRewriter` hands them over.
    @Option(name: .customLong("form-parts"), help: .hidden)
    var formParts: String?

    /// The form parts in command-line order, each with its option's long name.
    var formArguments: [(option: String, value: String)] {
        ArgumentRewriter.namedValues(formParts) + form.map { ("--form", $0) } + formString.map { ("--form-string", $0) }
            + each.map { ("--each", $0) }
    }

    @Option(
        name: .customLong("form-string"),
        help: ArgumentHelp("A text field taken literally (no @, < or ;).", valueName: "name=value"))
    var formString: [String] = []

    @Option(
        name: .customLong("each"),
        help: ArgumentHelp("One task per file matching GLOB, each with the other -F parts.", valueName: "name=@GLOB"))
    var each: [String] = []

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: ArgumentHelp("urlencoded data sent as given (or @file), joined with &.", valueName: "data"))
    var data: [String] = []

    @Option(
        name: .customLong("data-urlencode"),
        help: ArgumentHelp(
            "urlencoded data, encoded by Hoist: content, name=content, @file or name@file.", valueName: "data"))
    var dataURLEncode: [String] = []

    @Option(name: .customLong("json-body"), help: .hidden)
    var jsonBody: String?

    @Flag(name: .customLong("json-output"), help: .hidden)
    var jsonOutput = false

    @Option(
        name: [.customShort("T"), .customLong("upload-file")],
        help: ArgumentHelp(
            "Send a file as the whole body (PUT unless -X says otherwise); repeatable, globs allowed, a task each.",
            valueName: "path"))
    var uploadFile: [String] = []

    /// Every `-T`, in order, as `ArgumentRewriter` hands them over.
    @Option(name: .customLong("upload-file-list"), help: .hidden)
    var uploadFileList: String?

    /// The `-T` paths and globs in command-line order.
    var uploadFiles: [String] { ArgumentRewriter.values(uploadFileList) + uploadFile }

    @Option(
        name: .customLong("base64-json"),
        help: ArgumentHelp(
            "Send a file as base64 inside JSON: {\"field\": \"<base64>\", \"type\": \"jpg\", ...-F text fields}.",
            valueName: "field=@path"))
    var base64JSON: String?

    @Flag(help: "Name each file found by ** by its base name, not by its path under the folder.")
    var flat = false

    @Flag(help: "Take hidden files and folders (.name) that ** finds; they are skipped by default.")
    var hidden = false

    @Flag(
        name: .customLong("follow-symlinks"),
        help: "Follow symbolic links that ** finds, to files and folders; they are skipped by default.")
    var followSymlinks = false

    @Flag(name: .customLong("after-success"), help: "Start each task only after the one before it succeeded.")
    var afterSuccess = false

    @Option(
        help: ArgumentHelp(
            "Kept in the journal: hoist resume and the UI's R start high ones first.",
            valueName: "priority"))
    var priority: PriorityOption = .normal

    @Option(
        name: .customLong("secret"),
        help: ArgumentHelp(
            "A field whose value is never printed (password, token... are masked anyway).", valueName: "name"))
    var secretFields: [String] = []

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp(
            "Write the response bodies to this file (- for stdout, even binary ones on a terminal).",
            valueName: "file"))
    var output: String?

    @Flag(name: [.customShort("s"), .customLong("silent")], help: "No progress rows.")
    var silent = false

    @Flag(
        name: [.customShort("v"), .customLong("verbose")],
        help: "Print each request's headers and parts (secrets masked) to stderr, then each exchange as it goes."
    )
    var verbose = false

    @Flag(name: .customLong("no-history"), help: "Do not append the finished tasks to the history (see hoist history).")
    var noHistory = false

    @Flag(
        name: .customLong("no-journal"),
        help: "Do not keep unfinished tasks in the journal; after a crash they cannot be resumed.")
    var noJournal = false

    func run() async throws {
        let plan = try SendPlan(command: self, profile: target.loadProfile())
        let session = SendSession(
            plan: plan, output: jsonOutput ? .jsonLines : .bodies(try BodyOutput(path: output)), verbose: verbose,
            insecure: target.insecure,
            showProgress: !silent,
            history: noHistory ? nil : HistoryStore(path: HistoryStore.defaultPath()),
            journal: noJournal ? nil : JournalStore.defaultDirectory())
        let status = await session.run()
        throw ExitCode(status.rawValue)
    }
}

/// `--priority`, by name.
enum PriorityOption: String, CaseIterable, ExpressibleByArgument {
    case high, normal, low

    var engine: TaskPriority {
        switch self {
        case .high: return .high
        case .normal: return .normal
        case .low: return .low
        }
    }
}
