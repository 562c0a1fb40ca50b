import FormData
import ImagePrep
import WireRules

/// An object in Google Cloud Storage (or a server speaking its JSON API:
/// fake-gcs-server, `hoist receive`), sent with Google's resumable upload
/// protocol: a session `POST`, chunks `PUT` with `Content-Range`, a `308`
/// saying what arrived. A file up to `singleRequestLimit` goes as one
/// `uploadType=media` request, as Google's own clients send small files.
public struct GCSSettings: Sendable, Hashable, Codable {
    /// `https://storage.googleapis.com`, or an emulator's base URL.
    public var endpoint: String
    public var bucket: String
    public var object: String
    /// Bytes per chunk; fixed sizes are whole multiples of 256 KiB, as GCS requires.
    public var chunkSize: TusChunkSize
    public var contentType: String
    /// The object's name ends with the file's name (a `gs://BUCKET/PREFIX/` target).
    public var keyIsFileName: Bool
    /// Files up to this many bytes go as one request.
    public var singleRequestLimit: Int64
    /// A service-account key file whose tokens authorize the requests
    /// (`GOOGLE_APPLICATION_CREDENTIALS`), when no token was given.
    public var serviceAccount: String?

    /// GCS's chunk granule: every chunk but the last is a multiple of it.
    public static let granule: Int64 = 256 << 10
    /// As google-cloud-storage: smaller files go in one request.
    public static let defaultSingleRequestLimit: Int64 = 8 << 20

    public init(
        endpoint: String, bucket: String, object: String, chunkSize: TusChunkSize = .automatic,
        contentType: String = "application/octet-stream", keyIsFileName: Bool = false,
        singleRequestLimit: Int64 = GCSSettings.defaultSingleRequestLimit, serviceAccount: String? = nil
    ) {
        self.serviceAccount = serviceAccount
        self.endpoint = endpoint
        self.bucket = bucket
        self.object = object
        self.chunkSize = chunkSize
        self.contentType = contentType
        self.keyIsFileName = keyIsFileName
        self.singleRequestLimit = singleRequestLimit
    }

    /// Where a resumable session is begun (the request's URL).
    public var sessionURL: String {
        base + "/upload/storage/v1/b/" + URIComponent.escaped(bucket) + "/o?uploadType=resumable&name="
            + URIComponent.escaped(object)
    }

    /// Where a small file goes in one request.
    var mediaURL: String {
        base + "/upload/storage/v1/b/" + URIComponent.escaped(bucket) + "/o?uploadType=media&name="
            + URIComponent.escaped(object)
    }

    /// `gs://bucket/name`, as results name the object.
    public var objectURL: String { "gs://\(bucket)/\(object)" }

    private var base: String { endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint }

    /// `auto`'s chunk: 100 MiB, as Google's client libraries send. A chunk
    /// costs a round trip and no memory here (it is sent from the file), and
    /// GCS keeps what arrived of a cut one, which the next attempt asks for.
    public static let automaticChunk: Int64 = 100 << 20

    /// The chunk size as sent: a fixed size rounded up to the granule.
    var chunk: Int64 {
        guard case .fixed(let bytes) = chunkSize else { return Self.automaticChunk }
        return Self.granular(bytes)
    }

    static func granular(_ size: Int64) -> Int64 {
        max(granule, (size + granule - 1) / granule * granule)
    }
}

extension GCSSettings: TransferKind {
    public static let kind = "gcs"
    static let checkpoints: [any CheckpointState.Type] = [GCSCheckpoint.self]

    func makeDriver() -> any TransferDriver { GCSDriver() }

    public var filename: String? { object.split(separator: "/").last.map(String.init) }

    /// An object named by a prefix and the file's name takes the prepared
    /// image's name and type, and the URL follows it.
    public mutating func carry(_ image: PreparedImage, url: inout String) {
        contentType = image.contentType
        guard keyIsFileName else { return }
        let prefix = object[..<(object.lastIndex(of: "/").map { object.index(after: $0) } ?? object.startIndex)]
        object = prefix + image.filename
        url = sessionURL
    }
}

extension Transfer {
    public static func gcs(_ settings: GCSSettings) -> Transfer { Transfer(settings) }

    public var gcs: GCSSettings? { settings(as: GCSSettings.self) }
}
