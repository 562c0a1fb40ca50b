import FormData

/// One HTTP exchange of a tus upload, as the driver asks for it. The engine
/// adds the user's headers and sends it; the answer goes back to the driver.
struct TusExchange: Sendable, Hashable {
    enum Kind: String, Sendable, Hashable {
        /// `OPTIONS` on the creation URL: versions, extensions, limits.
        case discover
        /// `POST` on the creation URL, with the first chunk when the server
        /// offers creation-with-upload.
        case create
        /// `HEAD` on the upload: the server's offset.
        case head
        /// `PATCH` from the offset.
        case patch
        /// `DELETE` (termination).
        case terminate

        var method: String {
            switch self {
            case .discover: return "OPTIONS"
            case .create: return "POST"
            case .head: return "HEAD"
            case .patch: return "PATCH"
            case .terminate: return "DELETE"
            }
        }
    }

    var kind: Kind
    var url: String
    /// The protocol's headers, `Tus-Resumable` first.
    var headers: [HeaderField]
    /// The file's bytes this exchange carries, if any.
    var chunk: Range<Int64>?
    /// Hash the chunk with this and send it as `Upload-Checksum`.
    var checksum: TusChecksumAlgorithm?

    var method: String { kind.method }
}

/// The `Upload-Checksum` algorithms hoist can compute, strongest last.
enum TusChecksumAlgorithm: String, Sendable, Hashable, CaseIterable, Comparable {
    case md5, sha1, sha256, sha384, sha512

    static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    var digest: DigestAlgorithm {
        switch self {
        case .md5: return .md5
        case .sha1: return .sha1
        case .sha256: return .sha256
        case .sha384: return .sha384
        case .sha512: return .sha512
        }
    }

    /// sha1 when the server offers it or nothing readable (it is the
    /// extension's mandatory algorithm, and the fastest strong enough to
    /// catch corruption in transit), else the strongest one offered.
    static func choose(offered: [String]) -> TusChecksumAlgorithm {
        let known = offered.compactMap { Self(rawValue: $0.lowercased()) }
        return known.isEmpty || known.contains(.sha1) ? .sha1 : known.max()!
    }
}

/// What an `OPTIONS` answer says about the server.
struct TusServerCapabilities: Sendable, Hashable {
    var versions: [String]
    var extensions: Set<String>
    var maxSize: Int64?
    var checksumAlgorithms: [String]

    /// What a server that does not answer `OPTIONS` is taken to offer: the
    /// core protocol and creation.
    static let assumed = TusServerCapabilities(
        versions: ["1.0.0"], extensions: ["creation"], maxSize: nil, checksumAlgorithms: [])

    init(versions: [String], extensions: Set<String>, maxSize: Int64?, checksumAlgorithms: [String]) {
        self.versions = versions
        self.extensions = extensions
        self.maxSize = maxSize
        self.checksumAlgorithms = checksumAlgorithms
    }

    init(headers: [HeaderField]) {
        func list(_ name: String) -> [String] {
            (headers.value(of: name) ?? "").split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
        }
        versions = list("Tus-Version")
        extensions = Set(list("Tus-Extension").map { $0.lowercased() })
        maxSize = headers.value(of: "Tus-Max-Size").flatMap { Int64($0.trimmingSpaces) }
        checksumAlgorithms = list("Tus-Checksum-Algorithm")
    }

    func offers(_ extensionName: String) -> Bool { extensions.contains(extensionName) }
}

extension [HeaderField] {
    /// The last value of a header, by case-insensitive name.
    func value(of name: String) -> String? {
        last(where: { $0.name.lowercased() == name.lowercased() })?.value
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}

extension String {
    var trimmingSpaces: String { self[...].trimmingSpaces }
}
