/// Rewrites curl-style arguments that swift-argument-parser cannot express:
///
/// - `--json DOC` (a JSON body, as in curl) versus `--json` alone (JSON lines
///   on stdout): a following argument that starts like a JSON document or
///   `@file` is the body; anything else leaves `--json` a flag.
/// - `-F`, `--form-string` and `--each` keep their relative order, which is
///   the order of the parts on the wire: they are taken out, tagged, and
///   handed over as one hidden `--form-parts` argument. The parser's work
///   grows with the square of the arguments it sees (10,000 `-F` took 10 s),
///   so a form of many parts is one argument to it.
/// - `-Fname=value`, curl's attached value, and `-sF`, short flags joined
///   to `-F`, are read as curl reads them.
enum ArgumentRewriter {
    static let literalTag = "\u{1}string:"
    static let eachTag = "\u{1}each:"
    /// The hidden option that carries the form parts, joined by NUL (which no argument can hold).
    static let formPartsOption = "--form-parts"
    static let formPartsSeparator: Character = "\u{0}"
    /// `hoist send`'s short flags that take no value, which may be joined to `-F` (`-sF`).
    static let shortFlags: Set<Character> = ["s", "v", "k"]

    static func rewrite(_ arguments: [String]) -> [String] {
        guard arguments.first == "send" else { return arguments }
        var out: [String] = []
        var parts: [String] = []
        var index = 0
        var rest: ArraySlice<String> = []
        scan: while index < arguments.count {
            let argument = arguments[index]
            let next: String? = index + 1 < arguments.count ? arguments[index + 1] : nil
            /// Takes `next` as a form part with `tag`; false when there is none.
            func takeNext(tag: String) -> Bool {
                guard let next else { return false }
                parts.append(tag + next)
                index += 1
                return true
            }
            switch argument {
            case "--":
                rest = arguments[index...]
                break scan
            case "--json":
                if let next, looksLikeJSONBody(next) {
                    out += ["--json-body", next]
                    index += 1
                } else {
                    out.append("--json-output")
                }
            case "-F", "--form":
                if !takeNext(tag: "") { out.append(argument) }
            case "--form-string":
                if !takeNext(tag: literalTag) { out.append(argument) }
            case "--each":
                if !takeNext(tag: eachTag) { out.append(argument) }
            default:
                if argument.hasPrefix("--json=") {
                    out += ["--json-body", String(argument.dropFirst("--json=".count))]
                } else if argument.hasPrefix("--form=") {
                    parts.append(String(argument.dropFirst("--form=".count)))
                } else if argument.hasPrefix("--form-string=") {
                    parts.append(literalTag + argument.dropFirst("--form-string=".count))
                } else if argument.hasPrefix("--each=") {
                    parts.append(eachTag + argument.dropFirst("--each=".count))
                } else if argument.hasPrefix("-F") {
                    parts.append(String(argument.dropFirst(2)))
                } else if let flags = joinedFlags(argument), takeNext(tag: "") {
                    out.append(flags)
                } else {
                    out.append(argument)
                }
            }
            index += 1
        }
        if !parts.isEmpty {
            out.insert(contentsOf: [formPartsOption, parts.joined(separator: String(formPartsSeparator))], at: 1)
        }
        return out + rest
    }

    /// `-sF` → `-s`: short flags joined to a final `-F`, else nil.
    private static func joinedFlags(_ argument: String) -> String? {
        guard argument.count > 2, argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.hasSuffix("F"),
            argument.dropFirst().dropLast().allSatisfy(shortFlags.contains)
        else { return nil }
        return String(argument.dropLast())
    }

    /// The form parts `rewrite` put in the hidden option, in command-line order.
    static func formParts(_ joined: String?) -> [String] {
        guard let joined else { return [] }
        return joined.split(separator: formPartsSeparator, omittingEmptySubsequences: false).map(String.init)
    }

    static func looksLikeJSONBody(_ text: String) -> Bool {
        guard let first = text.first(where: { !$0.isWhitespace }) else { return false }
        return "{[\"@".contains(first)
    }
}
