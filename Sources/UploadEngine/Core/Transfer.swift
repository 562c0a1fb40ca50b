import FormData
import ImagePrep

/// How a request's body goes to the server: one exchange (`single`), or a
/// resumable kind's protocol of several, carried out by its driver (see
/// "Adding a transfer kind" in docs/ARCHITECTURE.md). The kinds are not named here: each
/// brings its settings (`TransferSettings`) and is listed in `TransferKinds`.
public struct Transfer: Sendable, Hashable, Codable {
    /// The kind's settings; `nil` when one request carries the whole body.
    public let settings: (any TransferSettings)?

    /// One request carries the whole body (multipart, raw, JSON...).
    public static let single = Transfer(settings: nil)

    public init(_ settings: some TransferSettings) {
        self.settings = settings
    }

    private init(settings: (any TransferSettings)?) {
        self.settings = settings
    }

    public var isResumable: Bool { settings != nil }

    /// The word profiles, the CLI and the `t` dialog use.
    public var name: String { settings.map { type(of: $0).kind } ?? "single" }

    /// The settings, when they are of kind `type`.
    public func settings<Settings: TransferSettings>(as type: Settings.Type) -> Settings? {
        settings as? Settings
    }

    /// The task's driver; `nil` for a single request.
    func makeDriver() -> (any TransferDriver)? {
        (settings as? any TransferKind)?.makeDriver()
    }

    public static func == (a: Transfer, b: Transfer) -> Bool {
        guard let left = a.settings, let right = b.settings else { return a.settings == nil && b.settings == nil }
        return left.isEqual(to: right)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        settings?.hash(into: &hasher)
    }

    // As Swift wrote the enum this was, `{"single":{}}` or `{"tus":{"_0":…}}`,
    // so that journals of earlier versions read back.
    public init(from decoder: any Decoder) throws {
        self = try NameKey.decodeNamed(from: decoder, what: "transfer kind") { name, container in
            if name == "single" { return .single }
            return try TransferKinds.kind(named: name).map { Transfer(try NameKey.value($0, in: container)) }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try NameKey.encodeNamed(name, settings, to: encoder)
    }
}

extension UploadRequest {
    /// Goes on from where it stopped after an interruption, instead of
    /// being sent again from byte 0.
    public var isResumable: Bool { transfer.isResumable }
}

/// A resumable kind's settings, which a request carries and a journal keeps.
public protocol TransferSettings: Sendable, Hashable, Codable {
    /// Its name in profiles, the CLI, the dialog and journals: "tus", "s3".
    static var kind: String { get }
    /// The file's name as the server is told it, where the kind tells it.
    var filename: String? { get }
    /// A prepared image goes instead of the file: tell the server its name
    /// and type, and move `url` if the kind names the object in it.
    mutating func carry(_ image: PreparedImage, url: inout String)
}

extension TransferSettings {
    public var filename: String? { nil }
    public mutating func carry(_ image: PreparedImage, url: inout String) {}

    fileprivate func isEqual(to other: any TransferSettings) -> Bool {
        (other as? Self) == self
    }
}

/// The smallest durable fact that lets a resumable transfer go on after any
/// fault, even in another process: the engine reports each new one to its
/// monitors (`UploadEvent.checkpoint`), the journal keeps it, and
/// `UploadEngine.restore` takes it back. Its state is the kind's own.
public struct TransferCheckpoint: Sendable, Hashable, Codable {
    public let state: any CheckpointState

    public init(_ state: some CheckpointState) {
        self.state = state
    }

    /// The state, when it is of type `type`.
    public func state<State: CheckpointState>(as type: State.Type) -> State? {
        state as? State
    }

    /// Bytes the server is known to hold.
    public var offset: Int64 { state.offset }
    /// The bytes the transfer carries in all, when known.
    public var length: Int64? { state.knownLength }
    /// Where the upload lives on the server (a URL, an upload ID).
    public var uploadURL: String { state.uploadURL }
    /// `tus upload URL`, or `S3 multipart upload ID, 3 of 5 parts`, as the
    /// result line and the Response pane show it (secrets masked).
    public var summary: String { state.summary }

    public static func == (a: TransferCheckpoint, b: TransferCheckpoint) -> Bool {
        a.state.isEqual(to: b.state)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type(of: state).name)
        state.hash(into: &hasher)
    }

    // `{"tus":{"_0":…}}`, as Swift wrote the enum this was.
    public init(from decoder: any Decoder) throws {
        self = try NameKey.decodeNamed(from: decoder, what: "checkpoint") { name, container in
            try TransferKinds.checkpoint(named: name).map { TransferCheckpoint(try NameKey.value($0, in: container)) }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try NameKey.encodeNamed(type(of: state).name, state, to: encoder)
    }
}

/// What a kind's driver keeps of one upload to go on with it later.
public protocol CheckpointState: Sendable, Hashable, Codable {
    /// Its name in journals: "tus", "tusParts", "s3".
    static var name: String { get }
    /// Bytes the server is known to hold.
    var offset: Int64 { get }
    /// The bytes the transfer carries in all, when known.
    var knownLength: Int64? { get }
    var uploadURL: String { get }
    var summary: String { get }
}

extension CheckpointState {
    fileprivate func isEqual(to other: any CheckpointState) -> Bool {
        (other as? Self) == self
    }
}

extension Encodable {
    fileprivate func encode(into container: inout KeyedEncodingContainer<NameKey>) throws {
        try container.encode(self, forKey: .value)
    }
}

/// A key that is a kind's or a checkpoint's name, and `_0` for its value:
/// `{"NAME":{"_0":VALUE}}`.
private struct NameKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static let value = NameKey("_0")

    /// `read` makes the value of the one name there, or `nil` for a name it does not know.
    static func decodeNamed<Value>(
        from decoder: any Decoder, what: String,
        _ read: (String, KeyedDecodingContainer<NameKey>) throws -> Value?
    ) throws -> Value {
        let container = try decoder.container(keyedBy: NameKey.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "a \(what) has one key, its name"))
        }
        guard let value = try read(key.stringValue, container.nestedContainer(keyedBy: NameKey.self, forKey: key))
        else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "\(key.stringValue) is no \(what) this hoist knows")
        }
        return value
    }

    /// `_0` as `type`.
    static func value<Value: Decodable>(_ type: Value.Type, in container: KeyedDecodingContainer<NameKey>) throws
        -> Value
    {
        try container.decode(Value.self, forKey: .value)
    }

    static func encodeNamed(_ name: String, _ value: (any Encodable)?, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: NameKey.self)
        var nested = container.nestedContainer(keyedBy: NameKey.self, forKey: NameKey(name))
        try value?.encode(into: &nested)
    }
}
