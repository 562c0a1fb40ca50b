import UploadPlan

/// Rewrites curl-style arguments that swift-argument-parser cannot express:
///
/// - `--json DOC` (a JSON body, as in curl) versus `--json` alone (JSON lines
///   on stdout): a following argument that starts like a JSON document or
///   `@file` is the body; anything else leaves `--json` a flag.
/// - The options a script may repeat thousands of times (`-F`,
///   `--form-string`, `--each`, `-T`, `-H`) are taken out and handed over
///   as one hidden argument per kind, their values joined in order. The
///   parser's work grows with the square of the arguments it sees (10,000
///   `-F` took 10 s). `-F`, `--form-string` and `--each` share one, each
///   value after its option's long name, so their relative order, the
///   order of the parts on the wire, is kept and each value stays as given.
/// - `-Fname=value` (curl's attached value) and `-sF name=value` (short flags
///   joined to the option) are read as curl reads them, for `-T` and `-H` too
///   (`ArgumentTokenizer`, which the secret blanking reads as well).
/// - The target options (`TargetOption.all`: `--retries`, `--chunk-size`,
///   `--tus`...) of `hoist send` and `hoist tui` go in one hidden argument,
///   each value after its flag, for `TargetOptions` to check with the table.
/// - The UI's files (`hoist URL *.jpg`, `hoist tui ...`) go in one hidden argument too.
enum ArgumentRewriter {
    /// Joins the values in a hidden argument: no argument can hold a NUL.
    static let separator: Character = "\u{0}"
    /// The hidden options, as `SendCommand` and `RequestOptions` declare them.
    static let formParts = "--form-parts"
    static let uploadFileList = "--upload-file-list"
    static let headerList = "--header-list"
    static let targetSettings = "--target-settings"
    /// A repeatable option gathered into a hidden one: by long name.
    private struct Gathered {
        var hidden: String
        /// Several options share the hidden one: each value goes after its option's name.
        var named = false
    }
    private static let gathered = [
        "--form": Gathered(hidden: formParts, named: true),
        "--form-string": Gathered(hidden: formParts, named: true),
        "--each": Gathered(hidden: formParts, named: true),
        "--upload-file": Gathered(hidden: uploadFileList),
        "--header": Gathered(hidden: headerList),
    ]

    /// The hidden option that carries the UI's files (`hoist URL *.jpg`), in order.
    static let fileList = "--file-list"
    /// The commands other than the UI, which `hoist` without a command opens.
    private static let notTheUI: Set<String> = ["send", "resume", "receive", "demo", "history", "help"]

    static func rewrite(_ arguments: [String]) -> [String] {
        switch arguments.first {
        case "tui": return ["tui"] + gatherFiles(takeTargetOptions(Array(arguments.dropFirst())))
        case "send": return rewriteSend(arguments)
        case let first? where !notTheUI.contains(first): return gatherFiles(takeTargetOptions(arguments))
        default: return arguments
        }
    }

    private static func rewriteSend(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var values: [String: [String]] = [:]
        let tokens = tokensByPosition(arguments)
        var index = 0
        var rest: ArraySlice<String> = []
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest = arguments[index...]
                break
            } else if argument == "--json" {
                if index + 1 < arguments.count, looksLikeJSONBody(arguments[index + 1]) {
                    out += ["--json-body", arguments[index + 1]]
                    index += 1
                } else {
                    out.append("--json-output")
                }
            } else if argument.hasPrefix("--json=") {
                out += ["--json-body", String(argument.dropFirst("--json=".count))]
            } else if let token = tokens[index], let option = gathered[token.option.long] {
                values[option.hidden, default: []] += option.named ? [token.option.long, token.value] : [token.value]
                if let flags = token.flags { out.append(flags) }
                index = token.argument
            } else if let pair = targetOption(at: index, of: arguments, tokens) {
                values[targetSettings, default: []] += [pair.flag, pair.value]
                if let flags = tokens[index]?.flags { out.append(flags) }
                index = tokens[index]?.argument ?? index
            } else {
                out.append(argument)
            }
            index += 1
        }
        var hidden: [String] = []
        for name in [formParts, uploadFileList, headerList, targetSettings] {
            // Attached: a value that starts with a dash stays the option's value.
            if let joined = values[name] { hidden.append(name + "=" + joined.joined(separator: String(separator))) }
        }
        return ["send"] + hidden + out.dropFirst() + rest
    }

    /// The options of `hoist [tui]` that take the next word as their value,
    /// once the target options are out (`uiOptionsThatTakeAValueAreKnown`
    /// checks this against argument-parser).
    static let uiValueOptions: Set<String> = ["--profile", fileList, targetSettings, "--generate-completion-script"]

    /// The target option at `index` (`--retries 5`, `-XPUT`, `--tus`) as its flag and value.
    private static func targetOption(at index: Int, of arguments: [String], _ tokens: [Int: ArgumentTokenizer.Token])
        -> (flag: String, value: String)?
    {
        if let token = tokens[index] {
            return TargetOption.flagged(token.option.long) == nil ? nil : (token.option.long, token.value)
        }
        guard let flag = TargetOption.flagged(arguments[index])?.flag, !flag.takesValue else { return nil }
        return (flag.long, flag.switchValue)
    }

    /// The tokenizer's tokens by the position of their option.
    private static func tokensByPosition(_ arguments: [String]) -> [Int: ArgumentTokenizer.Token] {
        Dictionary(
            ArgumentTokenizer.tokens(arguments).map { ($0.optionArgument, $0) }, uniquingKeysWith: { first, _ in first }
        )
    }

    /// The UI's arguments with the target options (up to `--`) in `--target-settings`.
    private static func takeTargetOptions(_ arguments: [String]) -> [String] {
        let tokens = tokensByPosition(arguments)
        var out: [String] = []
        var pairs: [String] = []
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            if let pair = targetOption(at: index, of: arguments, tokens) {
                pairs += [pair.flag, pair.value]
                if let flags = tokens[index]?.flags { out.append(flags) }
                index = tokens[index]?.argument ?? index
            } else {
                out.append(arguments[index])
            }
            index += 1
        }
        out += arguments[index...]
        guard !pairs.isEmpty else { return out }
        return [targetSettings + "=" + pairs.joined(separator: String(separator))] + out
    }

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

    /// The values `rewrite` put in a hidden option, in command-line order.
    static func values(_ joined: String?) -> [String] {
        guard let joined else { return [] }
        return joined.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }

    /// The (option, value) pairs `rewrite` put in a hidden option shared by several options.
    static func namedValues(_ joined: String?) -> [(option: String, value: String)] {
        let values = values(joined)
        return stride(from: 0, to: values.count - 1, by: 2).map { (values[$0], values[$0 + 1]) }
    }

    static func looksLikeJSONBody(_ text: String) -> Bool {
        guard let first = text.first(where: { !$0.isWhitespace }) else { return false }
        return "{[\"@".contains(first)
    }
}
