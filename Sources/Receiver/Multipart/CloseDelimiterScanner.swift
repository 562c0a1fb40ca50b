#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Watches a multipart body for its close delimiter `CRLF--boundary--`.
///
/// multipart-kit's parser does not say whether a body ended cleanly, so a truncated upload would look
/// complete. The boundary never occurs inside part data, so the first `--boundary--` marks the end.
struct CloseDelimiterScanner {
    private let pattern: [UInt8]
    private var matched: Int
    private var scanned: Int64 = 0
    /// Stream offset just past the close delimiter, once seen; what follows is epilogue.
    private(set) var endOffset: Int64?
    var found: Bool { endOffset != nil }

    init(boundary: String) {
        pattern = Array("\r\n--\(boundary)--".utf8)
        // The body may start right at `--boundary`, without the CRLF, as the parser allows.
        matched = 2
    }

    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        defer { scanned += Int64(bytes.count) }
        guard !found, let base = bytes.baseAddress else { return }
        var index = 0
        while index < bytes.count {
            if matched == 0 {
                // Most bytes cannot start a match: jump to the next CR (memchr stays fast in debug builds).
                guard let next = memchr(base + index, 13, bytes.count - index) else { return }
                index = base.distance(to: UnsafeRawPointer(next))
            }
            let byte = bytes[index]
            if byte == pattern[matched] {
                matched += 1
                if matched == pattern.count {
                    endOffset = scanned + Int64(index) + 1
                    return
                }
            } else {
                // CR occurs only at the start of the pattern, so a mismatch restarts from 0, or 1 on a CR.
                matched = byte == 13 ? 1 : 0
            }
            index += 1
        }
    }
}
