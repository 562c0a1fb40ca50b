import Glibc
import WireRules

/// Produces a body's bytes into caller-provided buffers, so memory stays
/// bounded by the buffer whatever the file sizes. Not thread-safe: one owner
/// reads it, then closes it (or lets it go).
public final class BodyReader {
    private let segments: [RequestBody.Segment]
    private var index = 0
    /// Source bytes of the current segment already consumed.
    private var position: Int64 = 0
    private var descriptor: Int32 = -1
    private var ownsDescriptor = false
    /// Encoded base64 bytes not yet handed out.
    private var pendingEncoded: [UInt8] = []
    private var pendingOffset = 0
    private var failure: FormDataError?
    /// Total bytes produced so far.
    public private(set) var bytesProduced: Int64 = 0

    init(segments: [RequestBody.Segment]) {
        self.segments = segments
    }

    deinit {
        closeDescriptor()
    }

    /// Whether every byte has been produced.
    public var isFinished: Bool { index >= segments.count }

    /// Fills `buffer` with the next bytes and returns how many; 0 means the
    /// body is complete. It returns fewer than `buffer.count` only at the end,
    /// or right after a stream read so that slow streams are not held back.
    ///
    /// A file that changed since the body was built throws `fileChanged`;
    /// after any error the reader keeps throwing it.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FormDataError) -> Int {
        if let failure { throw failure }
        do throws(FormDataError) {
            let count = try fill(buffer)
            bytesProduced += Int64(count)
            return count
        } catch {
            failure = error
            closeDescriptor()
            throw error
        }
    }

    /// The next chunk of at most `maxSize` bytes, or `nil` at the end.
    public func nextChunk(maxSize: Int = 256 * 1024) throws(FormDataError) -> [UInt8]? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maxSize, alignment: 16)
        defer { buffer.deallocate() }
        let count = try read(into: buffer)
        guard count > 0 else { return nil }
        return Array(buffer[0..<count])
    }

    /// Closes any open file now rather than when the reader is released.
    public func close() {
        closeDescriptor()
        index = segments.count
    }

    private func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(FormDataError) -> Int {
        var filled = 0
        while filled < buffer.count, index < segments.count {
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
            switch segments[index] {
            case .bytes(let bytes):
                let start = Int(position)
                let count = min(bytes.count - start, target.count)
                bytes.withUnsafeBytes { source in
                    target.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
                }
                position += Int64(count)
                if position == Int64(bytes.count) { nextSegment() }
                filled += count
            case .file(let region):
                let count = try readFile(region, into: target)
                position += Int64(count)
                if position == region.length { nextSegment() }
                filled += count
            case .base64(let region):
                filled += try readBase64(region, into: target)
            case .stream(let source, let field):
                let count = try readStream(source, field: field, into: target)
                filled += count
                if count > 0 { return filled }
            }
        }
        return filled
    }

    /// Reads the next bytes of `region` at `position`, checking the file
    /// against its snapshot when opened and after its last byte.
    private func readFile(_ region: FileRegion, into target: UnsafeMutableRawBufferPointer) throws(FormDataError) -> Int
    {
        if descriptor < 0 {
            descriptor = try region.open()
            ownsDescriptor = true
            _ = posix_fadvise(descriptor, off_t(region.offset), off_t(region.length), POSIX_FADV_SEQUENTIAL)
        }
        let wanted = Int(min(Int64(target.count), region.length - position))
        var count = 0
        while true {
            count = pread(descriptor, target.baseAddress, wanted, off_t(region.offset + position))
            if count >= 0 || errno != EINTR { break }
        }
        if count < 0 {
            throw .readFailed(field: region.field, path: region.path, reason: errorText(errno))
        }
        if count == 0 {
            // Shorter than measured: verify explains how; fall back to a plain statement.
            try region.verify(descriptor: descriptor)
            throw .fileChanged(field: region.field, path: region.path, detail: "it ended early")
        }
        if position + Int64(count) == region.length {
            try region.verify(descriptor: descriptor)
        }
        return count
    }

    private func readBase64(_ region: FileRegion, into target: UnsafeMutableRawBufferPointer) throws(FormDataError)
        -> Int
    {
        if pendingOffset == pendingEncoded.count {
            // Refill with a multiple of 3 source bytes so only the last group pads.
            let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: 48 * 1024, alignment: 16)
            defer { raw.deallocate() }
            var got = 0
            while got < raw.count, position < region.length {
                let count = try readFile(region, into: UnsafeMutableRawBufferPointer(rebasing: raw[got...]))
                got += count
                position += Int64(count)
            }
            pendingEncoded = Base64.encode(UnsafeRawBufferPointer(rebasing: raw[0..<got]))
            pendingOffset = 0
        }
        let count = min(target.count, pendingEncoded.count - pendingOffset)
        pendingEncoded.withUnsafeBytes { source in
            target.baseAddress!.copyMemory(from: source.baseAddress! + pendingOffset, byteCount: count)
        }
        pendingOffset += count
        if pendingOffset == pendingEncoded.count, position == region.length {
            pendingEncoded = []
            pendingOffset = 0
            nextSegment()
        }
        return count
    }

    private func readStream(
        _ source: StreamSource, field: String, into target: UnsafeMutableRawBufferPointer
    ) throws(FormDataError) -> Int {
        if descriptor < 0 {
            switch source {
            case .standardInput:
                descriptor = STDIN_FILENO
                ownsDescriptor = false
            case .fileDescriptor(let fd):
                descriptor = fd
                ownsDescriptor = false
            case .path(let path):
                descriptor = try FileChecks.open(path: path, field: field)
                ownsDescriptor = true
            }
        }
        var count = 0
        while true {
            count = Glibc.read(descriptor, target.baseAddress, target.count)
            if count >= 0 || errno != EINTR { break }
        }
        if count < 0 {
            throw .readFailed(field: field, path: source.displayName, reason: errorText(errno))
        }
        if count == 0 { nextSegment() }
        return count
    }

    private func nextSegment() {
        closeDescriptor()
        index += 1
        position = 0
    }

    private func closeDescriptor() {
        if descriptor >= 0, ownsDescriptor {
            Glibc.close(descriptor)
        }
        descriptor = -1
        ownsDescriptor = false
    }
}

extension StreamSource {
    /// How the source is named in messages.
    public var displayName: String {
        switch self {
        case .standardInput: return "standard input"
        case .fileDescriptor(let fd): return "file descriptor \(fd)"
        case .path(let path): return path
        }
    }
}
