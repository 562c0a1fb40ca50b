import UploadEngine

/// A text field or a request header, as the Fields pane lists it.
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
}
