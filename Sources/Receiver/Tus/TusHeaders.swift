/// A request's tus headers, read through a lookup so the rules can be tested without a server.
struct TusHeaders {
    let value: (String) -> String?

    init(_ value: @escaping (String) -> String?) {
        self.value = value
    }

    /// Every request but OPTIONS must say which version it speaks; anything else is a 412.
    func checkVersion() throws(TusFailure) {
        guard value("Tus-Resumable")?.trimmed == TusProtocol.version else { throw .versionMissing }
    }

    /// A non-negative integer header; nil when absent, 400 when malformed.
    func integer(_ name: String) throws(TusFailure) -> Int64? {
        guard let text = value(name)?.trimmed else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int64(text) else {
            throw .badRequest("\(name): \"\(text)\" is not a non-negative integer")
        }
        return number
    }

    var contentLength: Int64? { value("Content-Length").flatMap { Int64($0.trimmed) } }

    /// Whether a body follows: a positive Content-Length, or chunked transfer coding.
    var hasBody: Bool {
        if let contentLength { return contentLength > 0 }
        return value("Transfer-Encoding") != nil
    }

    /// PATCH bodies (and creation-with-upload bodies) must be `application/offset+octet-stream`.
    func checkChunkContentType() throws(TusFailure) {
        let essence = value("Content-Type").map { MediaType(parsing: $0).essence }
        guard essence == TusProtocol.chunkContentType else {
            throw TusFailure(
                status: 415,
                message: "Content-Type must be \(TusProtocol.chunkContentType), not \(essence ?? "missing")")
        }
    }

    func checksum() throws(TusFailure) -> TusChecksum? {
        guard let header = value("Upload-Checksum") else { return nil }
        return try TusChecksum(parsing: header)
    }

    func metadata() throws(TusFailure) -> TusMetadata {
        guard let header = value("Upload-Metadata") else { return TusMetadata() }
        return try TusMetadata(parsing: header)
    }
}

/// What a creation POST asks for, checked: a length or a deferred one, metadata, and concatenation.
struct TusCreation: Equatable {
    enum Kind: Equatable {
        case single
        case partial
        /// The upload paths (or URLs) named by `Upload-Concat: final;...`, in order.
        case final([String])
    }

    var kind: Kind
    /// nil: deferred, or a final upload (whose length is the sum of its parts).
    var length: Int64?
    var metadata: TusMetadata

    init(_ headers: TusHeaders, maxSize: Int64?) throws(TusFailure) {
        metadata = try headers.metadata()
        let length = try headers.integer("Upload-Length")
        let deferred = headers.value("Upload-Defer-Length")?.trimmed
        if let deferred, deferred != "1" {
            throw .badRequest("Upload-Defer-Length must be 1, not \"\(deferred)\"")
        }
        switch headers.value("Upload-Concat")?.trimmed {
        case nil:
            kind = .single
        case "partial":
            kind = .partial
        case let concat? where concat.hasPrefix("final;"):
            let urls = concat.dropFirst("final;".count).split(separator: " ").map(String.init)
            guard length == nil, deferred == nil else {
                throw .badRequest("a final upload takes no Upload-Length: its length is the sum of its parts")
            }
            kind = .final(urls)
            self.length = nil
            return
        case let concat?:
            throw .badRequest("Upload-Concat must be \"partial\" or \"final;URL URL...\", not \"\(concat)\"")
        }
        switch (length, deferred) {
        case (nil, nil):
            throw .badRequest("creating an upload needs Upload-Length (or Upload-Defer-Length: 1)")
        case (.some, .some):
            throw .badRequest("send Upload-Length or Upload-Defer-Length, not both")
        case (let length?, nil):
            if let maxSize, length > maxSize {
                throw .tooLarge("Upload-Length \(length) is larger than Tus-Max-Size \(maxSize)")
            }
            self.length = length
        case (nil, .some):
            self.length = nil
        }
    }
}

extension String {
    fileprivate var trimmed: String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
