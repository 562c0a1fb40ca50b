/// Rewrites curl-style arguments that swift-argument-parser cannot express:
///
/// - `--json DOC` (a JSON body, as in curl) versus `--json` alone (JSON lines
///   on stdout): a following argument that starts like a JSON document or
///   `@file` is the body; anything else leaves `--json` a flag.
/// - `-F`, `--form-string` and `--each` keep their relative order, which is
///   the order of the parts on the wire, by all becoming `--form` with a tag.
enum ArgumentRewriter {
    static let literalTag = "\u{1}string:"
    static let eachTag = "\u{1}each:"

    static func rewrite(_ arguments: [String]) -> [String] {
        guard arguments.first == "send" else { return arguments }
        var out: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let next: String? = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch argument {
            case "--":
                out += arguments[index...]
                return out
            case "--json":
                if let next, looksLikeJSONBody(next) {
                    out += ["--json-body", next]
                    index += 1
                } else {
                    out.append("--json-output")
                }
            case "--form-string":
                if let next {
                    out += ["--form", literalTag + next]
                    index += 1
                } else {
                    out.append(argument)
                }
            case "--each":
                if let next {
                    out += ["--form", eachTag + next]
                    index += 1
                } else {
                    out.append(argument)
                }
            default:
                if argument.hasPrefix("--json=") {
                    out += ["--json-body", String(argument.dropFirst("--json=".count))]
                } else if argument.hasPrefix("--form-string=") {
                    out += ["--form", literalTag + argument.dropFirst("--form-string=".count)]
                } else if argument.hasPrefix("--each=") {
                    out += ["--form", eachTag + argument.dropFirst("--each=".count)]
                } else {
                    out.append(argument)
                }
            }
            index += 1
        }
        return out
    }

    static func looksLikeJSONBody(_ text: String) -> Bool {
        guard let first = text.first(where: { !$0.isWhitespace }) else { return false }
        return "{[\"@".contains(first)
    }
}
