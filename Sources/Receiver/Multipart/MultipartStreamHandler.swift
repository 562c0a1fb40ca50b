import MultipartKit
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Streams a multipart/form-data body through multipart-kit's `MultipartParser`, chunk by chunk.
///
/// Parts with a filename go to disk as they arrive (never whole in memory); text parts become fields,
/// each capped at ``maxFieldBytes`` and all together at `maxTotalFieldBytes`; at most `maxParts`
/// parts. The parser reports through callbacks that cannot throw, so the first error is kept and
/// rethrown from `feed`. On any failure `abort()` removes every file of the request.
///
/// Speed: the parser looks at every byte through generic collection code, far too slow for large
/// uploads in a debug build. So once the parser is known to be inside a part's data, bytes up to the
/// next CR that could begin `CRLF--boundary` skip the parser and go straight to the part, exactly as
/// the parser would have passed them on. Delimiters, headers and any CR that might
/// start a delimiter still go through the parser, one byte at a time, until it is back in part data.
final class MultipartStreamHandler {
    static let maxFieldBytes = 8 << 20
    /// Bytes the parser may see one at a time without reaching part data (preamble, delimiter, headers).
    static let maxStructureBytes = 64 << 10

    private enum PartState {
        case headers
        case field(name: String, value: [UInt8])
        case file(UploadSink, name: String, filename: String, contentType: String?)
    }

    private let parser: MultipartParser
    private let directory: UploadDirectory
    private let maxParts: Int
    private let maxTotalFieldBytes: Int
    private var parts = 0
    private var fieldBytes = 0
    private let boundary: String
    /// `CRLF--boundary`: where part data may end.
    private let delimiter: [UInt8]
    private var scanner: CloseDelimiterScanner
    private var headerNames: HeaderNameTracker
    private var fed: Int64 = 0
    /// True while the parser is in its body state with nothing pending, so data may bypass it.
    private var inData = false
    private var structureBytes = 0
    private var lastCallbackWasBody = false
    private var headers: [(name: String, value: String)] = []
    private var part: PartState = .headers
    private var failure: ReceiverError?
    private var savedPaths: [String] = []
    private(set) var fields: [ReceivedUpload.Field] = []
    private(set) var files: [ReceivedUpload.File] = []

    init(boundary: String, directory: UploadDirectory, maxParts: Int = 1_000, maxTotalFieldBytes: Int = 16 << 20) {
        self.parser = MultipartParser(boundary: boundary)
        self.directory = directory
        self.maxParts = maxParts
        self.maxTotalFieldBytes = maxTotalFieldBytes
        self.boundary = boundary
        self.delimiter = Array("\r\n--\(boundary)".utf8)
        self.scanner = CloseDelimiterScanner(boundary: boundary)
        self.headerNames = HeaderNameTracker(delimiter: delimiter)
        parser.onHeader = { [unowned self] name, value in
            self.lastCallbackWasBody = false
            if case .headers = self.part { self.headers.append((name: name, value: value)) }
        }
        parser.onBody = { [unowned self] buffer in
            self.lastCallbackWasBody = true
            self.bodyReceived(buffer)
        }
        parser.onPartComplete = { [unowned self] in
            self.lastCallbackWasBody = false
            self.headerNames.partCompleted()
            self.structureBytes = 0
            self.partCompleted()
        }
    }

    func feed(_ buffer: ByteBuffer) throws(ReceiverError) {
        buffer.withUnsafeReadableBytes { scanner.scan($0) }
        var rest = buffer
        while rest.readableBytes > 0 {
            // What follows the close delimiter is epilogue, which the parser ignores anyway.
            if let end = scanner.endOffset, fed >= end { break }
            if inData {
                let (dataBytes, atDelimiter) = rest.withUnsafeReadableBytes(dataPrefix)
                if dataBytes > 0 {
                    bodyReceived(rest.readSlice(length: dataBytes)!)
                    fed += Int64(dataBytes)
                }
                if atDelimiter { inData = false }
            } else {
                let byte = rest.readSlice(length: 1)!
                let value = byte.readableBytesView.first!
                if headerNames.readsName, value >= 0x80 {
                    throw .badRequest(
                        "malformed multipart/form-data body: a part's header name holds a byte that is not ASCII")
                }
                lastCallbackWasBody = false
                do {
                    try parser.execute(byte)
                } catch {
                    throw .badRequest(
                        "malformed multipart/form-data body: a part's boundary line or headers cannot be parsed")
                }
                headerNames.consumed(value)
                fed += 1
                // A non-CR byte that came out as part data leaves the parser in its body state, nothing pending.
                if lastCallbackWasBody, byte.readableBytesView.first != 13 {
                    inData = true
                    structureBytes = 0
                } else {
                    structureBytes += 1
                    if structureBytes > Self.maxStructureBytes, failure == nil {
                        let limit = Self.maxStructureBytes >> 10
                        failure = .badRequest(
                            "malformed multipart/form-data body: more than \(limit) KiB of preamble or part headers")
                    }
                }
            }
            if let failure { throw failure }
        }
    }

    /// Call at the end of the body: checks that the close delimiter arrived.
    func finish() throws(ReceiverError) {
        if let failure { throw failure }
        guard scanner.found, case .headers = part else {
            throw .badRequest(
                "malformed multipart/form-data body: it ended before the closing boundary \"--\(boundary)--\"")
        }
    }

    /// Removes every file this request saved, including a partial one.
    func abort() {
        if case .file(let sink, _, _, _) = part { sink.abort() }
        part = .headers
        for path in savedPaths { unlink(path) }
        savedPaths = []
        files = []
    }

    /// How many leading bytes are certainly part data, and whether a possible delimiter follows them.
    private func dataPrefix(_ bytes: UnsafeRawBufferPointer) -> (Int, Bool) {
        guard let base = bytes.baseAddress else { return (0, false) }
        var index = 0
        while index < bytes.count {
            guard let next = memchr(base + index, 13, bytes.count - index) else { return (bytes.count, false) }
            let cr = base.distance(to: UnsafeRawPointer(next))
            let available = min(delimiter.count, bytes.count - cr)
            if memcmp(base + cr, delimiter, available) == 0 {
                return (cr, true)  // a delimiter, or the start of one cut by the end of the chunk
            }
            index = cr + 1
        }
        return (bytes.count, false)
    }

    private func startPart() {
        parts += 1
        guard parts <= maxParts else {
            failure = .payloadTooLarge("more than \(maxParts) parts in one form (the receiver's --max-parts)")
            return
        }
        let disposition = headers.first { $0.name.lowercased() == "content-disposition" }
            .map { ContentDisposition(parsing: $0.value) }
        let name = disposition?.name ?? ""
        if let filename = disposition?.filename {
            let contentType = headers.first { $0.name.lowercased() == "content-type" }?.value
            do {
                let sink = try directory.createFile(for: filename)
                part = .file(sink, name: name, filename: filename, contentType: contentType)
            } catch {
                failure = error
            }
        } else {
            part = .field(name: name, value: [])
        }
    }

    private func bodyReceived(_ buffer: ByteBuffer) {
        guard failure == nil else { return }
        if case .headers = part { startPart() }
        switch part {
        case .headers:
            break
        case .field(let name, var value):
            guard value.count + buffer.readableBytes <= Self.maxFieldBytes else {
                failure = .payloadTooLarge(
                    "form field \"\(name)\" is larger than \(Self.maxFieldBytes >> 20) MiB;"
                        + " send it as a file part (with a filename)")
                return
            }
            fieldBytes += buffer.readableBytes
            guard fieldBytes <= maxTotalFieldBytes else {
                failure = .payloadTooLarge(
                    "the form's text fields are larger than \(maxTotalFieldBytes) bytes together"
                        + " (the receiver's --max-fields-size); send large values as file parts")
                return
            }
            part = .headers  // drop the second reference so the append does not copy
            buffer.withUnsafeReadableBytes { value.append(contentsOf: $0) }
            part = .field(name: name, value: value)
        case .file(let sink, _, _, _):
            do {
                try sink.write(buffer)
            } catch {
                failure = error
            }
        }
    }

    private func partCompleted() {
        guard failure == nil else { return }
        if case .headers = part { startPart() }
        switch part {
        case .headers:
            break
        case .field(let name, let value):
            fields.append(.init(name: name, value: String(decoding: value, as: UTF8.self)))
        case .file(let sink, let name, let filename, let contentType):
            do {
                let sha256 = try sink.finish()
                savedPaths.append(sink.path)
                files.append(
                    .init(
                        name: name, filename: filename, contentType: contentType, size: sink.size, sha256: sha256,
                        savedAs: sink.savedAs))
            } catch {
                failure = error
                return
            }
        }
        guard failure == nil else { return }
        part = .headers
        headers = []
    }
}

/// Follows multipart-kit's parser (4.7.1) through the bytes it is fed, just far enough to know when it
/// reads a header name: it looks each name byte up in a 128-entry table, so a byte >= 0x80 there traps
/// (index out of range) and would take the whole receiver down. The states mirror `MultipartParser`'s.
private struct HeaderNameTracker {
    private enum State {
        /// Looking for the first delimiter, matched as the parser does (it may skip the leading CRLF).
        case preamble(matched: Int)
        /// The CRLF after a delimiter.
        case afterDelimiter(sawCR: Bool)
        case name(isEmpty: Bool)
        case value
        /// The LF after a header line's CR.
        case afterValue
        /// The LF of the blank line that ends the headers.
        case afterHeaders
        /// Part data, a delimiter being matched, or the epilogue: no header name until a part completes.
        case other
    }

    private let delimiter: [UInt8]
    private var state = State.preamble(matched: 0)
    private var completedPart = false

    init(delimiter: [UInt8]) {
        self.delimiter = delimiter
    }

    var readsName: Bool {
        if case .name = state { return true }
        return false
    }

    /// The parser matched a delimiter after part data: the byte it is reading decides what follows.
    mutating func partCompleted() {
        completedPart = true
    }

    /// Moves on past `byte`, which the parser has just read. Bytes it refuses end the request, so
    /// only the paths it accepts are followed.
    mutating func consumed(_ byte: UInt8) {
        if completedPart {
            completedPart = false
            // CR: the headers' CRLF begins; '-': the close delimiter, then the epilogue.
            state = byte == 13 ? .afterDelimiter(sawCR: true) : .other
            return
        }
        switch state {
        case .preamble(var matched):
            if matched == 0, byte == delimiter[2] {
                matched = 3
            } else if byte == delimiter[matched] {
                matched += 1
            } else if matched > 0, byte == delimiter[0] {
                matched = 1
            } else {
                matched = 0
            }
            state = matched >= delimiter.count ? .afterDelimiter(sawCR: false) : .preamble(matched: matched)
        case .afterDelimiter(let sawCR):
            state = sawCR ? .name(isEmpty: true) : .afterDelimiter(sawCR: true)
        case .name(let isEmpty):
            if byte == UInt8(ascii: ":"), !isEmpty {
                state = .value
            } else if byte == 13, isEmpty {
                state = .afterHeaders
            } else {
                state = .name(isEmpty: false)
            }
        case .value:
            if byte == 13 { state = .afterValue }
        case .afterValue:
            state = .name(isEmpty: true)
        case .afterHeaders:
            state = .other
        case .other:
            break
        }
    }
}
