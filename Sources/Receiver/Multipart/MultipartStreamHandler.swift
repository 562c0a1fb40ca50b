import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receives a multipart/form-data body chunk by chunk through a ``MultipartFormParser``.
///
/// Parts with a filename go to disk as they arrive (never whole in memory); text parts become fields,
/// each capped at ``maxFieldBytes`` and all together at `maxTotalFieldBytes`; at most `maxParts`
/// parts. On any failure `abort()` removes every file of the request.
final class MultipartStreamHandler: MultipartPartReceiver {
    static let maxFieldBytes = 8 << 20
    /// Bytes of preamble, boundary line and headers allowed before a part's data.
    static let maxStructureBytes = 64 << 10

    private enum PartState {
        case none
        case field(name: String, value: [UInt8])
        case file(UploadSink, name: String, filename: String, contentType: String?)
    }

    private var parser: MultipartFormParser
    private let directory: UploadDirectory
    private let maxParts: Int
    private let maxTotalFieldBytes: Int
    private let boundary: String
    private var parts = 0
    private var fieldBytes = 0
    private var part: PartState = .none
    /// The first error; feeding more after it throws it again.
    private var failure: ReceiverError?
    private var savedPaths: [String] = []
    private(set) var fields: [ReceivedUpload.Field] = []
    private(set) var files: [ReceivedUpload.File] = []

    init(boundary: String, directory: UploadDirectory, maxParts: Int = 1_000, maxTotalFieldBytes: Int = 16 << 20) {
        self.parser = MultipartFormParser(boundary: boundary, maxStructureBytes: Self.maxStructureBytes)
        self.directory = directory
        self.maxParts = maxParts
        self.maxTotalFieldBytes = maxTotalFieldBytes
        self.boundary = boundary
    }

    func feed(_ buffer: ByteBuffer) throws(ReceiverError) {
        if let failure { throw failure }
        do {
            try parser.feed(buffer, to: self)
        } catch {
            failure = error
            throw error
        }
    }

    /// Call at the end of the body: checks that the close delimiter arrived.
    func finish() throws(ReceiverError) {
        if let failure { throw failure }
        guard parser.isFinished else {
            throw .badRequest(
                "malformed multipart/form-data body: it ended before the closing boundary \"--\(boundary)--\"")
        }
    }

    /// Removes every file this request saved, including a partial one.
    func abort() {
        if case .file(let sink, _, _, _) = part { sink.abort() }
        part = .none
        for path in savedPaths { unlink(path) }
        savedPaths = []
        files = []
    }

    func partStarted(headers: [MultipartFormParser.Header]) throws(ReceiverError) {
        parts += 1
        guard parts <= maxParts else {
            throw .payloadTooLarge("more than \(maxParts) parts in one form (the receiver's --max-parts)")
        }
        let disposition = headers.first { $0.name.lowercased() == "content-disposition" }
            .map { ContentDisposition(parsing: $0.value) }
        let name = disposition?.name ?? ""
        if let filename = disposition?.filename {
            let contentType = headers.first { $0.name.lowercased() == "content-type" }?.value
            let sink = try directory.createFile(for: filename)
            part = .file(sink, name: name, filename: filename, contentType: contentType)
        } else {
            part = .field(name: name, value: [])
        }
    }

    func partData(_ data: ByteBuffer) throws(ReceiverError) {
        switch part {
        case .none:
            preconditionFailure("part data before its headers")
        case .field(let name, var value):
            guard value.count + data.readableBytes <= Self.maxFieldBytes else {
                throw .payloadTooLarge(
                    "form field \"\(name)\" is larger than \(Self.maxFieldBytes >> 20) MiB;"
                        + " send it as a file part (with a filename)")
            }
            fieldBytes += data.readableBytes
            guard fieldBytes <= maxTotalFieldBytes else {
                throw .payloadTooLarge(
                    "the form's text fields are larger than \(maxTotalFieldBytes) bytes together"
                        + " (the receiver's --max-fields-size); send large values as file parts")
            }
            part = .none  // drop the second reference so the append does not copy
            data.withUnsafeReadableBytes { value.append(contentsOf: $0) }
            part = .field(name: name, value: value)
        case .file(let sink, _, _, _):
            try sink.write(data)
        }
    }

    func partEnded() throws(ReceiverError) {
        switch part {
        case .none:
            preconditionFailure("part end before its headers")
        case .field(let name, let value):
            fields.append(.init(name: name, value: String(decoding: value, as: UTF8.self)))
        case .file(let sink, let name, let filename, let contentType):
            let sha256 = try sink.finish()
            savedPaths.append(sink.path)
            files.append(
                .init(
                    name: name, filename: filename, contentType: contentType, size: sink.size, sha256: sha256,
                    savedAs: sink.savedAs))
        }
        part = .none
    }
}
