import Crypto
import FoundationEssentials

/// `Upload-Checksum: <algorithm> <base64 digest>` of one request's body (the checksum extension).
struct TusChecksum: Equatable {
    enum Algorithm: String, CaseIterable {
        case sha1, sha256, sha384, sha512, md5

        /// Advertised in `Tus-Checksum-Algorithm`; sha1 first, as the spec requires it of every server.
        static let advertised = allCases.map(\.rawValue).joined(separator: ",")
    }

    var algorithm: Algorithm
    var digest: [UInt8]

    /// An unknown algorithm or a digest that is not base64 is a 400, as the spec asks.
    init(parsing header: String) throws(TusFailure) {
        let words = header.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 2 else {
            throw .badRequest("Upload-Checksum must be \"<algorithm> <base64 digest>\", got \"\(header)\"")
        }
        guard let algorithm = Algorithm(rawValue: words[0].lowercased()) else {
            throw .badRequest(
                "Upload-Checksum: \(words[0]) is not supported; use one of \(Algorithm.advertised)")
        }
        guard let digest = Data(base64Encoded: String(words[1])) else {
            throw .badRequest("Upload-Checksum: the digest is not base64")
        }
        self.algorithm = algorithm
        self.digest = Array(digest)
    }
}

/// Hashes a request body as it streams by, with the algorithm the client chose.
struct TusHasher {
    private var hash: any HashFunction

    init(_ algorithm: TusChecksum.Algorithm) {
        switch algorithm {
        case .md5: hash = Insecure.MD5()
        case .sha1: hash = Insecure.SHA1()
        case .sha256: hash = SHA256()
        case .sha384: hash = SHA384()
        case .sha512: hash = SHA512()
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hash.update(bufferPointer: bytes)
    }

    func finalize() -> [UInt8] {
        hash.finalize().withUnsafeBytes { Array($0) }
    }
}
