import UploadPlan

/// The one reading of the options that take a value, in every spelling
/// Hoist accepts, as curl reads them: `-H v`, `-Hv`, `-sH v` and `-sHv`
/// (short flags joined before it), `--header v` and `--header=v`.
/// `ArgumentRewriter` gathers the repeatable options from it, and
/// `ArgumentSecrets` finds the secrets in it, so a spelling one of them
/// takes is never missed by the other.
enum ArgumentTokenizer {
    struct ValueOption: Sendable, Hashable {
        var short: Character?
        var long: String
    }

    /// The options that take a value and that the rewriter or the secret
    /// blanking reads: these, and every target option of `TargetOption.all`.
    static let valueOptions =
        [
            ValueOption(short: "F", long: "--form"), ValueOption(long: "--form-string"), ValueOption(long: "--each"),
            ValueOption(short: "T", long: "--upload-file"), ValueOption(short: "H", long: "--header"),
            ValueOption(short: "u", long: "--user"), ValueOption(long: "--token"), ValueOption(long: "--gcs-token"),
            ValueOption(long: "--secret-header"), ValueOption(long: "--secret"),
        ]
        + TargetOption.all.compactMap { option in
            option.flag.flatMap { $0.takesValue ? ValueOption(short: $0.short, long: $0.long) : nil }
        }

    /// `hoist send`'s short flags that take no value, which may be joined before a short option (`-sF`).
    static let shortFlags: Set<Character> = ["s", "v", "k"]

    /// An option and its value. The value is `arguments[argument]` from
    /// byte `offset` on: the same argument as the option, or the next one.
    struct Token: Sendable, Hashable {
        var option: ValueOption
        var value: String
        /// Where the option itself is.
        var optionArgument: Int
        var argument: Int
        var offset: Int
        /// The short flags joined before a short option (`-s` of `-sF`), if any.
        var flags: String?
    }

    /// The option an argument spells and its attached value, if any: for
    /// `--form=v` (value `v`), `-Fv`, `-sFv`, `-sF` (no value: the next
    /// argument holds it).
    static func read(_ argument: String) -> (option: ValueOption, value: String?, offset: Int, flags: String?)? {
        if argument.hasPrefix("--") {
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let option = valueOptions.first(where: { $0.long == name }) else { return nil }
            guard name.utf8.count < argument.utf8.count else { return (option, nil, 0, nil) }
            let offset = name.utf8.count + 1
            return (option, String(decoding: Array(argument.utf8)[offset...], as: UTF8.self), offset, nil)
        }
        guard argument.hasPrefix("-"), argument.count > 1 else { return nil }
        var flags = ""
        for (index, character) in argument.dropFirst().enumerated() {
            if let option = valueOptions.first(where: { $0.short == character }) {
                let start = argument.index(argument.startIndex, offsetBy: index + 2)
                let rest = String(argument[start...])
                return (
                    option, rest.isEmpty ? nil : rest, argument.utf8.distance(from: argument.startIndex, to: start),
                    flags.isEmpty ? nil : "-" + flags
                )
            }
            guard shortFlags.contains(character) else { return nil }
            flags.append(character)
        }
        return nil
    }

    /// Every value-taking option of `arguments` with its value, up to `--`.
    /// An option with no value after it is left out (argument-parser says so).
    static func tokens(_ arguments: [String]) -> [Token] {
        var found: [Token] = []
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            defer { index += 1 }
            guard let (option, value, offset, flags) = read(arguments[index]) else { continue }
            if let value {
                found.append(
                    Token(
                        option: option, value: value, optionArgument: index, argument: index, offset: offset,
                        flags: flags))
            } else if index + 1 < arguments.count {
                found.append(
                    Token(
                        option: option, value: arguments[index + 1], optionArgument: index, argument: index + 1,
                        offset: 0, flags: flags))
                index += 1
            }
        }
        return found
    }
}
