import FormData

// The values `JSONValue(encoding:)` gives for a request body and a file
// snapshot, built directly rather than through the Encoder: a journal encodes
// one of each per task as 1,000 tasks are queued, and the Encoder's nodes and
// containers were most of that cost. Tests compare both ways for every kind of
// part, so the two cannot drift apart.

extension UploadRequest.Body {
    /// The body as Codable encodes it.
    public var encodedJSON: JSONValue? {
        guard case .multipart(let form) = self, let parts = Self.encodedParts(form.parts) else {
            return try? JSONValue(encoding: self)
        }
        let encodedForm = JSONValue.object([.init("boundary", .string(form.boundary.value)), .init("parts", .array(parts))])
        return .object([.init("multipart", .object([.init("_0", encodedForm)]))])
    }

    /// Text and file parts; nil when one streams (left to Codable).
    private static func encodedParts(_ parts: [Part]) -> [JSONValue]? {
        var encoded: [JSONValue] = []
        encoded.reserveCapacity(parts.count)
        for part in parts {
            let content: JSONValue
            switch part.content {
            case .file(let path):
                content = .object([.init("file", .object([.init("path", .string(path))]))])
            case .bytes(let bytes):
                content = .object([.init("bytes", .object([.init("_0", .array(bytes.map { .number(String($0)) }))]))])
            case .stream:
                return nil
            }
            var members: [JSONValue.Member] = [.init("name", .string(part.name))]
            if let filename = part.filename { members.append(.init("filename", .string(filename))) }
            if let type = part.contentType { members.append(.init("contentType", .string(type))) }
            let headers = part.headers.map { JSONValue.object([.init("name", .string($0.name)), .init("value", .string($0.value))]) }
            members.append(.init("headers", .array(headers)))
            members.append(.init("content", content))
            encoded.append(.object(members))
        }
        return encoded
    }
}

extension FileSnapshot {
    /// The snapshot as Codable encodes it.
    public var encodedJSON: JSONValue {
        .object([
            .init("size", .number(String(size))),
            .init("device", .number(String(device))),
            .init("inode", .number(String(inode))),
            .init("modifiedSeconds", .number(String(modifiedSeconds))),
            .init("modifiedNanoseconds", .number(String(modifiedNanoseconds))),
        ])
    }
}
