import FormData

/// A request as it goes, secrets masked: what `hoist send -v` prints and
/// the UI's Response pane shows with `x`.
public enum RequestDescription {
    public static func lines(for request: UploadRequest, secretFields: Set<String>, secretHeaders: Set<String> = [])
        -> [String]
    {
        var lines = ["> \(request.method.rawValue) \(Secrets.displayURL(request.url))"]
        for header in request.headers {
            lines.append(
                "> \(header.name): \(Secrets.displayValue(header: header.name, value: header.value, marked: secretHeaders))"
            )
        }
        switch request.body {
        case .multipart(let form):
            for part in form.parts {
                lines.append("> part " + describe(part, secretFields: secretFields))
            }
        default:
            lines.append("> body: \(request.body.summary)")
        }
        return lines
    }

    public static func describe(_ part: Part, secretFields: Set<String>) -> String {
        let name = String(reflecting: part.name)
        switch part.content {
        case .bytes(let bytes):
            if let filename = part.filename {
                return "\(name): \(bytes.count) bytes as \(String(reflecting: filename))"
            }
            if Secrets.isSecretField(part.name, marked: secretFields) { return "\(name) = \(Secrets.mask)" }
            return "\(name) = \(String(reflecting: String(decoding: bytes, as: UTF8.self)))"
        case .file(let path):
            return part.filename.map { "\(name): file \(path) as \(String(reflecting: $0))" }
                ?? "\(name) = contents of \(path)"
        case .stream(let source):
            return "\(name): stream from \(source.displayName)"
        }
    }
}
