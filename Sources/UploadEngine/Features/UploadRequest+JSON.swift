import FormData

extension UploadRequest.Body {
    /// The body as `JSONValue(encoding:)` gives it, made by hand for the
    /// kinds a journal holds by the thousand (a multipart form of files and
    /// text fields, a raw file); `nil` for the others, which go through the
    /// Encoder. The Encoder's generic walk cost about 20,000 instructions a
    /// body, a tenth of all Hoist does per small upload besides AsyncHTTPClient.
    /// `bodiesWrittenByHandMatchTheEncoder` holds both encodings equal.
    public var encodedJSON: JSONValue? {
        switch self {
        case .multipart(let form):
            var parts: [JSONValue] = []
            parts.reserveCapacity(form.parts.count)
            for part in form.parts {
                guard let json = part.encodedJSON else { return nil }
                parts.append(json)
            }
            let value = JSONValue.object([
                .init("boundary", .string(form.boundary.value)), .init("parts", .array(parts)),
            ])
            return .object([.init("multipart", .object([.init("_0", value)]))])
        case .rawFile(let path, let contentType):
            var members: [JSONValue.Member] = [.init("path", .string(path))]
            if let contentType { members.append(.init("contentType", .string(contentType))) }
            return .object([.init("rawFile", .object(members))])
        case .urlencoded, .json, .bytes, .base64JSON, .stream:
            return nil
        }
    }
}

extension Part {
    /// See `UploadRequest.Body.encodedJSON`; `nil` for a streamed part.
    fileprivate var encodedJSON: JSONValue? {
        let content: JSONValue
        switch self.content {
        case .file(let path): content = .object([.init("file", .object([.init("path", .string(path))]))])
        case .bytes(let bytes):
            content = .object([.init("bytes", .object([.init("_0", .array(bytes.map { .number(String($0)) }))]))])
        case .stream: return nil
        }
        var members: [JSONValue.Member] = [.init("name", .string(name))]
        if let filename { members.append(.init("filename", .string(filename))) }
        if let contentType { members.append(.init("contentType", .string(contentType))) }
        members.append(
            .init(
                "headers",
                .array(headers.map { .object([.init("name", .string($0.name)), .init("value", .string($0.value))]) })))
        members.append(.init("content", content))
        return .object(members)
    }
}

extension FileSnapshot {
    /// As `JSONValue(encoding:)` gives it, made by hand (see `UploadRequest.Body.encodedJSON`).
    public var encodedJSON: JSONValue {
        .object([
            .init("size", .number(String(size))), .init("device", .number(String(device))),
            .init("inode", .number(String(inode))), .init("modifiedSeconds", .number(String(modifiedSeconds))),
            .init("modifiedNanoseconds", .number(String(modifiedNanoseconds))),
        ])
    }
}
