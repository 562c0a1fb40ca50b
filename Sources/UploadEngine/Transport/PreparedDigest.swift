import Crypto
import Dispatch
import FormData
import Foundation
import Glibc
import NIOConcurrencyHelpers

/// The digest of a region of a file (tus's `Upload-Checksum` of a chunk,
/// S3's `Content-MD5` of a part), computed off the engine's queue. The
/// digest must be in the headers before the body, so the next chunk's is
/// computed while this one is on the wire: hashing overlaps the transfer
/// instead of adding to it. Only the digest is kept: the region is then
/// sent from the file as any other (sendfile), and a file that changed in
/// between fails the snapshot check or the server's checksum.
final class PreparedDigest: Sendable {
    let range: Range<Int64>
    let algorithm: TusChecksumAlgorithm
    private let group = DispatchGroup()
    private let result = NIOLockedValueBox<Result<String, UploadFailure>?>(nil)

    init(_ region: FormData.FileRegion, algorithm: TusChecksumAlgorithm) {
        range = region.offset..<region.offset + region.length
        self.algorithm = algorithm
        let body = RequestBody(contentType: "application/octet-stream", segments: [.file(region)])
        group.enter()
        let thread = Thread { [result, group] in
            // Hashing has a whole chunk's transfer time to finish in. At a
            // lower priority it takes the CPU the transfer leaves idle, not
            // that of the threads moving the bytes (or of a receiver on the
            // same machine). A thread of its own: nice is per thread on
            // Linux, and a pool thread would keep it.
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            let outcome: Result<String, UploadFailure>
            do throws(FormDataError) {
                outcome = .success(try Self.digest(body, algorithm))
            } catch {
                outcome = .failure(.input(error))
            }
            result.withLockedValue { $0 = outcome }
            group.leave()
        }
        thread.start()
    }

    /// `prepared` when it is the digest of `region` with `algorithm` (what
    /// was hashed ahead is what is sent), else a new one.
    static func reuse(_ prepared: PreparedDigest?, for region: FormData.FileRegion, algorithm: TusChecksumAlgorithm)
        -> PreparedDigest
    {
        if let prepared, prepared.range == region.offset..<region.offset + region.length,
            prepared.algorithm == algorithm
        {
            return prepared
        }
        return PreparedDigest(region, algorithm: algorithm)
    }

    func whenReady(_ body: @escaping @Sendable (Result<String, UploadFailure>) -> Void) {
        group.notify(queue: .global()) { [result] in body(result.withLockedValue { $0! }) }
    }

    /// Reads the body through one 1 MiB buffer, hashing as it goes.
    private static func digest(_ body: RequestBody, _ algorithm: TusChecksumAlgorithm) throws(FormDataError) -> String {
        let reader = body.makeReader()
        defer { reader.close() }
        var digest = TusDigest(algorithm)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while !reader.isFinished {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
        }
        return digest.base64
    }
}

/// An `Upload-Checksum` digest, fed as the bytes come.
struct TusDigest {
    private var hash: any HashFunction

    init(_ algorithm: TusChecksumAlgorithm) {
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

    /// As `Upload-Checksum` carries it.
    var base64: String {
        hash.finalize().withUnsafeBytes { Data($0) }.base64EncodedString()
    }
}
