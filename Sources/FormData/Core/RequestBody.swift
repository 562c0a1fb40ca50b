import Glibc
import WireRules

/// A validated request body, laid out as segments: in-memory bytes, file
/// regions, base64-encoded file regions and streams. Every encoder
/// (multipart, urlencoded, JSON, raw file, base64 JSON) produces one. Its
/// exact length is known unless it holds a stream.
///
/// A body holds no open files. Each `makeReader()` opens them anew, so a
/// retry rebuilds the body from disk.
public struct RequestBody: Sendable, Equatable {
    /// One run of the body, in order.
    public enum Segment: Sendable, Equatable {
        /// Boundaries, headers and in-memory values, coalesced.
        case bytes([UInt8])
        /// A file's data, sendable zero-copy (sendfile).
        case file(FileRegion)
        /// A file's data as standard base64 (with padding), for JSON bodies.
        case base64(FileRegion)
        /// Data of unknown length.
        case stream(StreamSource, field: String)

        /// The number of bytes this segment produces, or `nil` for a stream.
        public var length: Int64? {
            switch self {
            case .bytes(let bytes): return Int64(bytes.count)
            case .file(let region): return region.length
            case .base64(let region): return Base64.encodedLength(region.length)
            case .stream: return nil
            }
        }
    }

    /// The request's Content-Type header value.
    public let contentType: String
    public let segments: [Segment]

    public init(contentType: String, segments: [Segment]) {
        self.contentType = contentType
        self.segments = segments
    }

    /// The exact number of bytes the body will have, or `nil` when a part is
    /// a stream and the request must be sent chunked.
    public var contentLength: Int64? {
        var total: Int64 = 0
        for segment in segments {
            guard let length = segment.length else { return nil }
            total += length
        }
        return total
    }

    /// A reader that produces the body's bytes in bounded memory.
    public func makeReader() -> BodyReader {
        BodyReader(segments: segments)
    }

    /// Collects adjacent in-memory runs into one segment.
    struct Layout {
        private var segments: [Segment] = []
        private var pending: [UInt8] = []

        mutating func append(bytes: [UInt8]) {
            pending += bytes
        }

        mutating func append(file region: FileRegion) {
            flush()
            // An empty file adds nothing; keeping it would only open it for no bytes.
            if region.length > 0 { segments.append(.file(region)) }
        }

        mutating func append(base64 region: FileRegion) {
            flush()
            if region.length > 0 { segments.append(.base64(region)) }
        }

        mutating func append(stream source: StreamSource, field: String) {
            flush()
            segments.append(.stream(source, field: field))
        }

        mutating func finish() -> [Segment] {
            flush()
            return segments
        }

        private mutating func flush() {
            if !pending.isEmpty {
                segments.append(.bytes(pending))
                pending = []
            }
        }
    }
}

/// A (file, offset, length) run of the body, with the snapshot taken when the
/// body was built so a sender can prove the file did not change.
public struct FileRegion: Sendable, Equatable {
    public let path: String
    /// The form field this file belongs to, for error messages.
    public let field: String
    public let offset: Int64
    public let length: Int64
    public let snapshot: FileSnapshot

    /// `length` bytes from `offset` of the file `snapshot` describes (a tus
    /// chunk): its sender refuses a file that no longer matches.
    public init(path: String, field: String, offset: Int64, length: Int64, snapshot: FileSnapshot) {
        self.path = path
        self.field = field
        self.offset = offset
        self.length = length
        self.snapshot = snapshot
    }

    /// A region covering the whole of a regular, readable file; throws the
    /// typed errors (not found, directory, permission, not regular).
    public static func wholeFile(path: String, field: String) throws(FormDataError) -> FileRegion {
        let snapshot = try FileChecks.regularFile(path: path, field: field)
        return FileRegion(path: path, field: field, offset: 0, length: snapshot.size, snapshot: snapshot)
    }

    /// Opens the file for reading and checks it against the snapshot. The
    /// caller owns the returned descriptor.
    public func open() throws(FormDataError) -> Int32 {
        let fd: Int32
        do {
            fd = try FileChecks.open(path: path, field: field)
        } catch .fileNotFound {
            throw .fileChanged(field: field, path: path, detail: "it was removed")
        }
        do {
            try verify(descriptor: fd)
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// Checks an open descriptor of this file against the snapshot; a sender
    /// calls it after opening and again after the last byte.
    public func verify(descriptor: Int32) throws(FormDataError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw .readFailed(field: field, path: path, reason: errorText(errno))
        }
        if let detail = snapshot.change(to: FileSnapshot(info)) {
            throw .fileChanged(field: field, path: path, detail: detail)
        }
    }
}

extension RequestBody {
    /// Whether every file of the body is, by stat, still the file its
    /// snapshot describes. Encoding the body again would then give this same
    /// body, so it can be sent without that work; the reader still checks
    /// each file as it opens it. A body with a stream is never reused.
    public func filesMatchSnapshots() -> Bool {
        segments.allSatisfy { segment in
            switch segment {
            case .bytes: return true
            case .file(let region), .base64(let region):
                return FileSnapshot(path: region.path).map { region.snapshot.difference(to: $0) == nil } ?? false
            case .stream: return false
            }
        }
    }
}
