import NIOCore
import WireRules

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Gets what a ``MultipartFormParser`` finds, in order: for each part its headers, its data in slices, its end.
protocol MultipartPartReceiver: AnyObject {
    func partStarted(headers: [MultipartFormParser.Header]) throws(ReceiverError)
    func partData(_ data: ByteBuffer) throws(ReceiverError)
    func partEnded() throws(ReceiverError)
}

/// A streaming multipart/form-data parser (RFC 7578, RFC 2046 section 5.1.1), fed chunks of any size.
///
/// Part data is searched for `CRLF--boundary` with memchr and handed on in slices. Bytes at the end of a
/// chunk that may begin a delimiter are held back until the next chunk tells. The preamble, a boundary
/// line and a part's headers may take at most `maxStructureBytes`, so they cannot grow without end.
struct MultipartFormParser {
    struct Header: Equatable {
        var name: String
        var value: String
    }

    private enum State {
        /// Before the first delimiter, which may open the body without its CRLF.
        case preamble
        /// After `--boundary`: `--` (the close delimiter), or transport padding then CRLF.
        case boundaryLine(BoundaryLine)
        case headers(HeaderLine)
        case data
        /// After the close delimiter: ignored.
        case epilogue
    }

    private enum BoundaryLine { case start, secondDash, padding, lineFeed }
    private enum HeaderLine { case name, value, lineFeed, blankLineFeed }

    static let unparsable = ReceiverError.badRequest(
        "malformed multipart/form-data body: a part's boundary line or headers cannot be parsed")
    // Header names are tokens: without this check the byte would only be "unparsable".
    static let nonASCIIName = ReceiverError.badRequest(
        "malformed multipart/form-data body: a part's header name holds a byte that is not ASCII")

    let maxStructureBytes: Int
    /// `CRLF--boundary`.
    private let delimiter: [UInt8]
    /// For a partial match of `n` delimiter bytes that fails, `fallback[n]` of them may still begin one.
    private let fallback: [Int]
    private var state = State.preamble
    /// Delimiter bytes matched at the end of what was fed, held back; the body starts as if after a CRLF.
    private var matched = 2
    private var structureBytes = 0
    private var name: [UInt8] = []
    private var value: [UInt8] = []
    private var headers: [Header] = []

    init(boundary: String, maxStructureBytes: Int) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.maxStructureBytes = maxStructureBytes
        // Knuth-Morris-Pratt failure function; all zeros unless the boundary holds a CR.
        var fallback = [Int](repeating: 0, count: delimiter.count + 1)
        var length = 0
        for index in delimiter.indices.dropFirst() {
            while length > 0, delimiter[index] != delimiter[length] { length = fallback[length] }
            if delimiter[index] == delimiter[length] { length += 1 }
            fallback[index + 1] = length
        }
        self.fallback = fallback
    }

    /// True once the close delimiter `--boundary--` was read.
    var isFinished: Bool {
        if case .epilogue = state { return true }
        return false
    }

    mutating func feed(_ buffer: ByteBuffer, to receiver: some MultipartPartReceiver) throws(ReceiverError) {
        try buffer.withUnsafeReadableBytes { (bytes: UnsafeRawBufferPointer) throws(ReceiverError) in
            var offset = 0
            while offset < bytes.count {
                switch state {
                case .preamble, .data:
                    offset = try scanData(bytes, from: offset, of: buffer, to: receiver)
                case .boundaryLine, .headers:
                    try parseStructure(bytes[offset], to: receiver)
                    offset += 1
                case .epilogue:
                    return
                }
            }
        }
    }

    /// Passes on data (or skips preamble) up to the next delimiter or the end of `bytes`; returns where it stopped.
    private mutating func scanData(
        _ bytes: UnsafeRawBufferPointer, from start: Int, of buffer: ByteBuffer,
        to receiver: some MultipartPartReceiver
    ) throws(ReceiverError) -> Int {
        let inPreamble = if case .preamble = state { true } else { false }
        let end = try scanToDelimiter(bytes, from: start, of: buffer, to: receiver)
        if inPreamble {
            structureBytes += end - start
            if structureBytes > maxStructureBytes { throw Self.tooMuchStructure(maxStructureBytes) }
        }
        return end
    }

    private mutating func scanToDelimiter(
        _ bytes: UnsafeRawBufferPointer, from start: Int, of buffer: ByteBuffer,
        to receiver: some MultipartPartReceiver
    ) throws(ReceiverError) -> Int {
        var offset = start
        // Settle a match held back from the previous chunk.
        while matched > 0, offset < bytes.count {
            if bytes[offset] == delimiter[matched] {
                matched += 1
                offset += 1
                if matched == delimiter.count {
                    try delimiterFound(to: receiver)
                    return offset
                }
            } else {
                let kept = fallback[matched]
                try passOn(ByteBuffer(bytes: delimiter[..<(matched - kept)]), to: receiver)
                matched = kept
            }
        }
        guard matched == 0 else { return offset }

        let (dataEnd, delimiterBytes) = find(in: bytes, from: offset)
        if dataEnd > offset {
            try passOn(buffer.getSlice(at: buffer.readerIndex + offset, length: dataEnd - offset)!, to: receiver)
        }
        if delimiterBytes == delimiter.count {
            try delimiterFound(to: receiver)
        } else {
            matched = delimiterBytes
        }
        return dataEnd + delimiterBytes
    }

    /// Where the first delimiter starts, and how many of its bytes follow (fewer at the end of `bytes`).
    private func find(in bytes: UnsafeRawBufferPointer, from start: Int) -> (Int, Int) {
        guard let base = bytes.baseAddress else { return (start, 0) }
        var index = start
        while index < bytes.count {
            guard let found = memchr(base + index, Int32(delimiter[0]), bytes.count - index) else { break }
            let position = base.distance(to: UnsafeRawPointer(found))
            let available = min(delimiter.count, bytes.count - position)
            if memcmp(base + position, delimiter, available) == 0 { return (position, available) }
            index = position + 1
        }
        return (bytes.count, 0)
    }

    private func passOn(_ data: ByteBuffer, to receiver: some MultipartPartReceiver) throws(ReceiverError) {
        if case .data = state { try receiver.partData(data) }
    }

    private mutating func delimiterFound(to receiver: some MultipartPartReceiver) throws(ReceiverError) {
        if case .data = state {
            try receiver.partEnded()
            structureBytes = 0
        }
        matched = 0
        state = .boundaryLine(.start)
    }

    /// One byte of a boundary line or of headers.
    private mutating func parseStructure(_ byte: UInt8, to receiver: some MultipartPartReceiver) throws(ReceiverError) {
        let space = UInt8(ascii: " ")
        let tab = UInt8(ascii: "\t")
        switch state {
        case .boundaryLine(let step):
            switch (step, byte) {
            case (.start, UInt8(ascii: "-")): state = .boundaryLine(.secondDash)
            case (.secondDash, UInt8(ascii: "-")): state = .epilogue
            case (.start, space), (.start, tab), (.padding, space), (.padding, tab): state = .boundaryLine(.padding)
            case (.start, 13), (.padding, 13): state = .boundaryLine(.lineFeed)
            case (.lineFeed, 10):
                state = .headers(.name)
                name = []
            default: throw Self.unparsable
            }
        case .headers(.name):
            if byte >= 0x80 { throw Self.nonASCIIName }
            if byte == UInt8(ascii: ":"), !name.isEmpty {
                state = .headers(.value)
                value = []
            } else if byte == 13, name.isEmpty {
                state = .headers(.blankLineFeed)
            } else if HeaderSyntax.isTokenByte(byte) {
                name.append(byte)
            } else {
                throw Self.unparsable
            }
        case .headers(.value):
            if byte == 13 {
                state = .headers(.lineFeed)
            } else if !value.isEmpty || (byte != space && byte != tab) {
                value.append(byte)
            }
        case .headers(.lineFeed):
            guard byte == 10 else { throw Self.unparsable }
            headers.append(
                Header(
                    name: String(validating: name, as: UTF8.self) ?? "",
                    value: String(validating: value, as: UTF8.self) ?? ""))
            name = []
            state = .headers(.name)
        case .headers(.blankLineFeed):
            guard byte == 10 else { throw Self.unparsable }
            state = .data
            structureBytes = 0
            let partHeaders = headers
            headers = []
            try receiver.partStarted(headers: partHeaders)
            return
        case .preamble, .data, .epilogue:
            preconditionFailure("not a boundary line or headers")
        }
        if case .epilogue = state { return }
        structureBytes += 1
        if structureBytes > maxStructureBytes { throw Self.tooMuchStructure(maxStructureBytes) }
    }

    private static func tooMuchStructure(_ limit: Int) -> ReceiverError {
        .badRequest("malformed multipart/form-data body: more than \(limit >> 10) KiB of preamble or part headers")
    }
}
