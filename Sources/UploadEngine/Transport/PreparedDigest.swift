import CLinux
import Crypto
import Dispatch
import FormData
import FoundationEssentials
import Glibc
import NIOConcurrencyHelpers

/// The digest of a region of a file (tus's `Upload-Checksum` of a chunk,
/// S3's CRC32 or `Content-MD5` of a part), computed off the engine's queue. The
/// digest must be in the headers before the body, so the next chunk's is
/// computed while this one is on the wire: hashing overlaps the transfer
/// instead of adding to it. Only the digest is kept: the region is then
/// sent from the file as any other (sendfile), and a file that changed in
/// between fails the snapshot check or the server's checksum.
final class PreparedDigest: Sendable {
    let range: Range<Int64>
    let algorithm: DigestAlgorithm
    private let group = DispatchGroup()
    private let result = NIOLockedValueBox<Result<String, UploadFailure>?>(nil)

    /// Hashes `region`, after `previous` is hashed when one is given: a
    /// lane's chunks are hashed one at a time, nearest first.
    init(_ region: FormData.FileRegion, algorithm: DigestAlgorithm, after previous: PreparedDigest? = nil) {
        range = region.offset..<region.offset + region.length
        self.algorithm = algorithm
        let body = RequestBody(contentType: "application/octet-stream", segments: [.file(region)])
        group.enter()
        DetachedThread.start { [result, group] in
            previous?.group.wait()
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
    }

    /// The digest of `region` with `algorithm`: one hashed ahead, taken out
    /// of `ahead` (what was hashed ahead is what is sent), else a new one,
    /// hashed after `previous`.
    static func reuse(
        from ahead: inout [PreparedDigest], for region: FormData.FileRegion, algorithm: DigestAlgorithm,
        after previous: PreparedDigest? = nil
    ) -> PreparedDigest {
        let range = region.offset..<region.offset + region.length
        if let index = ahead.firstIndex(where: { $0.range == range && $0.algorithm == algorithm }) {
            return ahead.remove(at: index)
        }
        return PreparedDigest(region, algorithm: algorithm, after: previous)
    }

    /// `prepared` when it is the digest of `region` with `algorithm`, else a new one.
    static func reuse(_ prepared: PreparedDigest?, for region: FormData.FileRegion, algorithm: DigestAlgorithm)
        -> PreparedDigest
    {
        var ahead = prepared.map { [$0] } ?? []
        return reuse(from: &ahead, for: region, algorithm: algorithm)
    }

    /// Runs `body` on `queue`, the caller's, with the digest: at once when
    /// it is ready (no hop between a server's answer and the next request),
    /// else when the hashing ends.
    func whenReady(on queue: DispatchQueue, _ body: @escaping @Sendable (Result<String, UploadFailure>) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        if let ready = result.withLockedValue({ $0 }) { return body(ready) }
        group.notify(queue: queue) { [result] in body(result.withLockedValue { $0! }) }
    }

    /// Reads the body through one 1 MiB buffer, hashing as it goes.
    private static func digest(_ body: RequestBody, _ algorithm: DigestAlgorithm) throws(FormDataError) -> String {
        let reader = body.makeReader()
        defer { reader.close() }
        var digest = StreamingDigest(algorithm)
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

/// A digest a driver sends with a chunk (tus `Upload-Checksum`, an S3
/// part's checksum); each kind names its own choices in these.
enum DigestAlgorithm: Sendable, Hashable {
    case md5, sha1, sha256, sha384, sha512, crc32
}

/// A digest fed as the bytes come.
struct StreamingDigest {
    private var hash: (any HashFunction)?
    private var crc: UInt = 0

    init(_ algorithm: DigestAlgorithm) {
        switch algorithm {
        case .md5: hash = Insecure.MD5()
        case .sha1: hash = Insecure.SHA1()
        case .sha256: hash = SHA256()
        case .sha384: hash = SHA384()
        case .sha512: hash = SHA512()
        // zlib's CRC32 runs at about 3 GB/s here, MD5 at 0.6.
        case .crc32: hash = nil
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if hash != nil {
            hash!.update(bufferPointer: bytes)
        } else if let base = bytes.baseAddress {
            crc = crc32_z(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
    }

    /// The digest of bytes in memory (a chunk of standard input).
    static func base64(of bytes: [UInt8], _ algorithm: DigestAlgorithm) -> String {
        var digest = StreamingDigest(algorithm)
        bytes.withUnsafeBytes { digest.update($0) }
        return digest.base64
    }

    /// As `Upload-Checksum`, `Content-MD5` and `x-amz-checksum-crc32`
    /// carry it: the digest's bytes (the CRC big-endian) in base64.
    var base64: String {
        guard let hash else {
            let value = UInt32(truncatingIfNeeded: crc).bigEndian
            return withUnsafeBytes(of: value) { Data($0) }.base64EncodedString()
        }
        return hash.finalize().withUnsafeBytes { Data($0) }.base64EncodedString()
    }
}
