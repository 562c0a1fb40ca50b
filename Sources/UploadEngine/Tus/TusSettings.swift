import FormData
import ImagePrep

/// How large each tus `PATCH` is.
public enum TusChunkSize: Sendable, Hashable, Codable {
    /// Starts at `first`; then each `PATCH`'s rate sizes a later chunk to
    /// about a second of transfer (at most twice the chunk before it),
    /// between `first` and `largest`. A fast link needs few round trips, and
    /// a slow one never risks more than a few seconds of work on one request.
    case automatic
    /// Always this many bytes (a 413 still halves it).
    case fixed(Int64)

    /// 8 MiB: under the 10 MB many proxies cap a request at.
    public static let first: Int64 = 8 << 20
    /// 64 MiB: under the 100 MB that CDN proxies such as Cloudflare's allow
    /// one request.
    public static let largest: Int64 = 64 << 20
    /// The transfer time an automatic chunk aims at.
    public static let aim: Double = 1

    /// The automatic size after a `PATCH` that moved `bytes` in `seconds`: a
    /// power-of-two multiple of `first`, at most `largest` and `ceiling`.
    public static func automatic(afterSending bytes: Int64, in seconds: Double, ceiling: Int64 = .max) -> Int64 {
        let affordable = Double(bytes) / max(seconds, 0.000_001) * aim
        var size = first
        while size * 2 <= largest, Double(size * 2) <= affordable { size *= 2 }
        return min(size, ceiling)
    }

    /// The size of the first chunk.
    public var initial: Int64 {
        switch self {
        case .automatic: return Self.first
        case .fixed(let bytes): return bytes
        }
    }

    // "auto", or a number of bytes (as journals before `automatic` wrote it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bytes = try? container.decode(Int64.self) {
            self = .fixed(bytes)
        } else if try container.decode(String.self) == "auto" {
            self = .automatic
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a chunk size is bytes or \"auto\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .automatic: try container.encode("auto")
        case .fixed(let bytes): try container.encode(bytes)
        }
    }
}

/// The client's tus choices.
public struct TusSettings: Sendable, Hashable, Codable {
    /// Bytes per PATCH; a 413 halves it for the rest of the upload.
    public var chunkSize: TusChunkSize
    /// Partial uploads sent at once, joined with the concatenation extension.
    public var parallelParts: Int
    /// Extra `Upload-Metadata` pairs (from `-F name=value`), after `filename` and `filetype`.
    public var metadata: [HeaderField]
    /// Send `Upload-Checksum` when the server offers the checksum extension.
    public var checksum: Bool

    public init(
        chunkSize: TusChunkSize = .automatic, parallelParts: Int = 1, metadata: [HeaderField] = [],
        checksum: Bool = true
    ) {
        self.chunkSize = chunkSize
        self.parallelParts = parallelParts
        self.metadata = metadata
        self.checksum = checksum
    }
}

extension TusSettings: TransferKind {
    public static let kind = "tus"
    static let checkpoints: [any CheckpointState.Type] = [TusCheckpoint.self, TusPartsCheckpoint.self]

    func makeDriver() -> any TransferDriver { TusDriver() }

    public var filename: String? { metadata.first { $0.name == "filename" }?.value }

    /// The prepared image's name and type go in the metadata.
    public mutating func carry(_ image: PreparedImage, url: inout String) {
        for index in metadata.indices {
            switch metadata[index].name {
            case "filename": metadata[index].value = image.filename
            case "filetype": metadata[index].value = image.contentType
            default: break
            }
        }
    }
}

extension Transfer {
    /// A tus 1.0 resumable upload: the URL is the creation endpoint and the
    /// body a `.rawFile`, sent in chunks from the server's offset.
    public static func tus(_ settings: TusSettings) -> Transfer { Transfer(settings) }

    public var tus: TusSettings? { settings(as: TusSettings.self) }
}
