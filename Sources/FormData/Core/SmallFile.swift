import Glibc

/// Reads small files whole: a `headers=@file`, /etc/mime.types, a setting under /proc.
///
/// One reader for all of them, so each gets the same EINTR handling and the
/// same bound on memory.
enum SmallFile {
    /// Why a file could not be read whole, and what was read before that.
    struct ReadError: Error, CustomStringConvertible {
        enum Reason: Equatable {
            /// open() failed with this errno.
            case open(Int32)
            /// read() failed with this errno; a directory fails with EISDIR.
            case read(Int32)
            /// The file holds more than `limit` bytes.
            case tooLarge(limit: Int)
        }

        var reason: Reason
        /// The bytes read before the error.
        var partial: [UInt8]

        var description: String {
            switch reason {
            case .open(let code), .read(let code): errorText(code)
            case .tooLarge(let limit): "larger than \(limit) bytes"
            }
        }
    }

    /// The bytes of `path` up to its end; a file of more than `limit` bytes is an error.
    static func read(_ path: String, limit: Int) throws(ReadError) -> [UInt8] {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(reason: .open(errno), partial: []) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw ReadError(reason: .read(EISDIR), partial: [])
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(reason: .read(errno), partial: bytes)
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
        throw ReadError(reason: .tooLarge(limit: limit), partial: bytes)
    }
}

/// Reads a small text file whole, or returns nil when it cannot be opened.
///
/// Reading stops once `limit` bytes are in; what was read before a read
/// error is returned.
public func readSmallFile(_ path: String, limit: Int) -> String? {
    do {
        return String(decoding: try SmallFile.read(path, limit: limit - 1), as: UTF8.self)
    } catch {
        if case .open = error.reason { return nil }
        return String(decoding: error.partial, as: UTF8.self)
    }
}
