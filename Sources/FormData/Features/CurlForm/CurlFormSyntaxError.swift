import WireRules

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
        "bad \(option) argument \(TerminalText.quoted(argument)): \(reason)"
    }
}
