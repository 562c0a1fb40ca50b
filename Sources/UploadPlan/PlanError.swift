/// Why a target with its entries and payload cannot become requests.
/// Front ends add how to fix it in their own terms (a key to press, an
/// option to give): `description` says what is wrong.
public enum PlanError: Error, Sendable, Hashable, CustomStringConvertible {
    case noURL
    case badValue(TargetValueError)
    /// No file, field or part at all.
    case nothingToSend
    /// The body kind sends files, and none was given.
    case needsFile(Target.BodyKind)
    /// The body kind is made of fields, and none was given.
    case needsFields(Target.BodyKind)
    /// The body kind cannot carry these fields (a raw file, a JSON document).
    case cannotSendFields(Target.BodyKind, names: [String])
    /// base64 JSON carries text fields besides its file, nothing else.
    case onlyTextParts
    /// A tus upload sends files; fields go in its metadata, as text.
    case tusNeedsFile
    case tusTextOnly
    case tusMetadataKey(String)
    /// An S3 upload sends files; metadata goes in `x-amz-meta-*` headers.
    case s3FilesOnly
    case s3(String)
    /// What a kind of `TargetKinds` cannot send.
    case kind(String)

    public var description: String {
        switch self {
        case .noURL: return "no target URL"
        case .badValue(let error): return error.description
        case .nothingToSend: return "nothing to send"
        case .needsFile(let kind): return "a \(kind.rawValue) body sends a file, and none was given"
        case .needsFields(let kind): return "a \(kind.rawValue) body is made of fields, and none was given"
        case .cannotSendFields(let kind, let names):
            return "a \(kind.rawValue) body cannot carry the fields \(names.joined(separator: ", "))"
        case .onlyTextParts: return "a base64 JSON body carries text fields only besides its file"
        case .tusNeedsFile: return "a tus upload sends files, and none was given"
        case .tusTextOnly: return "a tus upload sends each file alone; other parts can only be text, sent as metadata"
        case .tusMetadataKey(let problem): return problem
        case .s3FilesOnly:
            return "an S3 upload sends files, one object each; give metadata as headers: -H 'x-amz-meta-NAME: value'"
        case .s3(let problem), .kind(let problem): return problem
        }
    }
}
