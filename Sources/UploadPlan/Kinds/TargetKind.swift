import FormData
import UploadEngine

/// A transfer kind as targets know it, beside its engine driver: which
/// URLs mean it, and how staged files become its requests. A new kind is
/// its engine folder (`UploadEngine/KIND/`, listed in `TransferKinds`),
/// a file here, and one line in `TargetKinds.all` (docs/ARCHITECTURE.md,
/// "Adding a transfer kind").
public protocol TargetKind: Sendable {
    /// "GCS": the top bar's word for how files go, and messages'.
    static var label: String { get }
    /// How its URLs are written, for messages: `gs://BUCKET/NAME`.
    static var urlForm: String { get }
    /// Whether `url` names a target of this kind (`gs://…`).
    static func claims(_ url: String) -> Bool
    /// Refuses a URL this kind claims but cannot use.
    static func check(_ url: String) throws(TargetValueError)
    /// One request per file; refuses what the kind cannot send.
    static func requests(for target: Target, headers: [HeaderField], fields: [FormField], payload: Payload)
        throws(PlanError) -> [UploadRequest]
}

/// The kinds a target's URL can name, beyond plain HTTP and tus.
public enum TargetKinds {
    /// The one line a new kind adds.
    public static let all: [any TargetKind.Type] = [S3Target.self, GCSTarget.self]

    /// The kind whose URLs `url` is, if any.
    public static func claiming(_ url: String) -> (any TargetKind.Type)? {
        all.first { $0.claims(url) }
    }
}
