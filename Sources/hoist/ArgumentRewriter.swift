/// Rewrites curl-style arguments that swift-argument-parser cannot express:
///
/// - `--json DOC` (a JSON body, as in curl) versus `--json` alone (JSON lines
///   on stdout): a following argument that starts like a JSON document or
///   `@file` is the body; anything else leaves `--json` a flag.
/// - The options a script may repeat thousands of times (`-F`,
///   `--form-string`, `--each`, `-T`, `-H`) are taken out and handed over
///   as one hidden argument per kind, their values joined in order. The
///   parser's work grows with the square of the arguments it sees (10,000
///   `-F` took 10 s). `-F`, `--form-string` and `--each` share one, tagged,
///   so their relative order, the order of the parts on the wire, is kept.
/// - `-Fname=value` (curl's attached value) and `-sF name=value` (short flags
///   joined to the option) are read as curl reads them, for `-T` and `-H` too.
/// - The UI's files (`hoist URL *.jpg`, `hoist tui ...`) go in one hidden argument too.
enum ArgumentRewriter {
    /// Which of the three a form part was (no argument from a user starts
    /// with a control character by accident; one that does is tagged too).
    static let formTag = "\u{1}form:"
    static let literalTag = "\u{1}string:"
    static let eachTag = "\u{1}each:"
    /// Joins the values in a hidden argument: no argument can hold a NUL.
    static let separator: Character = "\u{0}"
    /// The hidden options, as `SendCommand` and `RequestOptions` declare them.
    static let formParts = "--form-parts"
    static let uploadFileList = "--upload-file-list"
    static let headerList = "--header-list"
    /// `hoist send`'s short flags that take no value, which may be joined to a gathered option (`-sF`).
    static let shortFlags: Set<Character> = ["s", "v", "k"]

    /// A repeatable option gathered into a hidden one.
    private struct Gathered {
        var short: Character?
        var long: String
        var hidden: String
        var tag = ""
    }
    private static let gathered = [
        Gathered(short: "F", long: "--form", hidden: formParts, tag: formTag),
        Gathered(long: "--form-string", hidden: formParts, tag: literalTag),
        Gathered(long: "--each", hidden: formParts, tag: eachTag),
        Gathered(short: "T", long: "--upload-file", hidden: uploadFileList),
        Gathered(short: "H", long: "--header", hidden: headerList),
    ]

    /// The hidden option that carries the UI's files (`hoist URL *.jpg`), in order.
    static let fileList = "--file-list"
    /// The commands other than the UI, which `hoist` without a command opens.
    private static let notTheUI: Set<String> = ["send", "resume", "receive", "demo", "history", "help"]

    static func rewrite(_ arguments: [String]) -> [String] {
        switch arguments.first {
        case "tui": return ["tui"] + gatherFiles(Array(arguments.dropFirst()))
        case "send": return rewriteSend(arguments)
        case let first? where !notTheUI.contains(first): return gatherFiles(arguments)
        default: return arguments
        }
    }

    private static func rewriteSend(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var values: [String: [String]] = [:]
        var index = 0
        var rest: ArraySlice<String> = []
        func add(_ value: String, for option: Gathered) {
            values[option.hidden, default: []].append(option.tag + value)
        }
        scan: while index < arguments.count {
            let argument = arguments[index]
            let next: String? = index + 1 < arguments.count ? arguments[index + 1] : nil
            /// Takes `next` as a value of `option`; false when there is none.
            func takeNext(for option: Gathered) -> Bool {
                guard let next else { return false }
                add(next, for: option)
                index += 1
                return true
            }
            if argument == "--" {
                rest = arguments[index...]
                break scan
            } else if argument == "--json" {
                if let next, looksLikeJSONBody(next) {
                    out += ["--json-body", next]
                    index += 1
                } else {
                    out.append("--json-output")
                }
            } else if argument.hasPrefix("--json=") {
                out += ["--json-body", String(argument.dropFirst("--json=".count))]
            } else if let option = gathered.first(where: {
                $0.long == argument || $0.short.map { "-\($0)" } == argument
            }) {
                if !takeNext(for: option) { out.append(argument) }
            } else if let (option, value) = attachedValue(argument) {
                add(value, for: option)
            } else if let (flags, option) = joinedFlags(argument), takeNext(for: option) {
                out.append(flags)
            } else {
                out.append(argument)
            }
            index += 1
        }
        var hidden: [String] = []
        for name in [formParts, uploadFileList, headerList] {
            if let joined = values[name] { hidden += [name, joined.joined(separator: String(separator))] }
        }
        return ["send"] + hidden + out.dropFirst() + rest
    }

    /// The options of `hoist [tui]` that take the next word as their value
    /// (`uiOptionsThatTakeAValueAreKnown` checks this against argument-parser).
    static let uiValueOptions: Set<String> = [
        "--profile", "--concurrency", "--limit-rate", "--chunk-size", "--parallel-parts", "--endpoint", "--region",
        "--aws-profile", "--part-size", "--part-concurrency", "--storage-class", "--acl", "--checksum",
        "--content-type", fileList, "--generate-completion-script",
    ]

    /// The UI's words (`hoist URL *.jpg`: the URL and one word per file), all
    /// in `--file-list`, in order; `TUICommand` takes the first as the URL
    /// when it is one. What follows an option that takes a value is its value.
    private static func gatherFiles(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var words: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                words += arguments[(index + 1)...]
                break
            }
            if argument.hasPrefix("-") && argument.count > 1 {
                out.append(argument)
                if uiValueOptions.contains(argument), index + 1 < arguments.count {
                    out.append(arguments[index + 1])
                    index += 1
                }
            } else {
                words.append(argument)
            }
            index += 1
        }
        guard words.count > 1 else { return arguments }
        return [fileList, words.joined(separator: String(separator))] + out
    }

    /// `--form=value` and `-Fvalue`: an option with its value in the same argument.
    private static func attachedValue(_ argument: String) -> (Gathered, String)? {
        for option in gathered {
            if argument.hasPrefix(option.long + "=") {
                return (option, String(argument.dropFirst(option.long.count + 1)))
            }
            if let short = option.short, argument.count > 2, argument.hasPrefix("-\(short)") {
                return (option, String(argument.dropFirst(2)))
            }
        }
        return nil
    }

    /// `-sF` → (`-s`, -F): short flags joined to a final gathered option.
    private static func joinedFlags(_ argument: String) -> (String, Gathered)? {
        guard argument.count > 2, argument.hasPrefix("-"), !argument.hasPrefix("--"),
            let last = argument.last, let option = gathered.first(where: { $0.short == last }),
            argument.dropFirst().dropLast().allSatisfy(shortFlags.contains)
        else { return nil }
        return (String(argument.dropLast()), option)
    }

    /// The values `rewrite` put in a hidden option, in command-line order.
    static func values(_ joined: String?) -> [String] {
        guard let joined else { return [] }
        return joined.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }

    static func looksLikeJSONBody(_ text: String) -> Bool {
        guard let first = text.first(where: { !$0.isWhitespace }) else { return false }
        return "{[\"@".contains(first)
    }
}
