import UploadEngine

/// A text field or a request header: a profile's, one given on the command
/// line, or one in the UI's Fields pane.
public struct FormEntry: Sendable, Hashable, Codable {
    public enum Kind: Sendable, Hashable, Codable {
        case field, header
    }

    public var kind: Kind
    public var name: String
    public var value: String
    /// Shown masked. Set from the name (password, token, Authorization, ...)
    /// when the entry is made, and toggled with `s`.
    public var isSecret: Bool

    public init(kind: Kind, name: String, value: String, isSecret: Bool? = nil) {
        self.kind = kind
        self.name = name
        self.value = value
        self.isSecret = isSecret ?? FormEntry.looksSecret(kind: kind, name: name)
    }

    public static func looksSecret(kind: Kind, name: String) -> Bool {
        kind == .header ? Secrets.isSecretHeader(name) || Secrets.isSecretField(name) : Secrets.isSecretField(name)
    }

    public var displayValue: String { isSecret ? Secrets.mask : value }

    /// Header names match in any case, field names exactly.
    public func sameName(as other: FormEntry) -> Bool {
        kind == .header ? name.lowercased() == other.name.lowercased() : name == other.name
    }
}
