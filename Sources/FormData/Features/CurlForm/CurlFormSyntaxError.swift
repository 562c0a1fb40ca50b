/// A `-F` or `--form-string` argument Hoist cannot send.
public struct CurlFormSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The whole argument as given.
    public let argument: String
    /// What is wrong and what to do instead.
    public let reason: String
    /// The option the argument came from: `-F` or `--form-string`.
    public let option: String

    public init(argument: String, reason: String, option: String = "-F") {
        self.argument = argument
        self.reason = reason
        self.option = option
    }

    /// `bad -F argument 'a;b': expected name=value`
    public var description: String {
        "bad \(option) argument \(displayQuoted(argument)): \(reason)"
    }
}

/// Quotes user text for a one-line message: single quotes, with `\`, `'`,
/// control characters and bidirectional overrides escaped so that the text
/// cannot break or reorder the terminal line it is printed on.
func displayQuoted(_ text: String) -> String {
    var out = "'"
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "'": out += "\\'"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\0": out += "\\0"
        default:
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value)
            let isInvisibleFormat =
                (0x200B...0x200F).contains(value) || (0x2028...0x202E).contains(value)
                || (0x2066...0x2069).contains(value) || value == 0xFEFF
            if isControl || isInvisibleFormat {
                out += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out + "'"
}
