import Crypto
import Foundation

/// Lowercase hex SHA-256 of `bytes`, the form the receiver reports.
public func sha256(_ bytes: [UInt8]) -> String {
    hex(SHA256.hash(data: bytes))
}

/// Lowercase hex SHA-256 of any bytes, e.g. `Data`.
public func sha256(_ bytes: some DataProtocol) -> String {
    hex(SHA256.hash(data: bytes))
}

/// Lowercase hex SHA-256 of a file, read in 1 MiB chunks; nil when it cannot be opened.
public func sha256(ofFile path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    var hasher = SHA256()
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        hasher.update(data: chunk)
    }
    return hex(hasher.finalize())
}

/// A digest as lowercase hex.
public func hex(_ digest: some Digest) -> String {
    digest.map { String(format: "%02x", $0) }.joined()
}
