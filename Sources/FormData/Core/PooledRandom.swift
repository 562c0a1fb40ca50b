import Glibc
import Synchronization

/// The kernel's random numbers, fetched 256 bytes at a time and handed out
/// a word at a time: `SystemRandomNumberGenerator` makes one `getrandom`
/// call per word, and every upload took three (two for its boundary, one
/// for its retry jitter), a tenth of the system calls of a small upload.
public struct PooledRandomNumberGenerator: RandomNumberGenerator, Sendable {
    public init() {}

    public mutating func next() -> UInt64 {
        Self.pool.withLock { pool in
            if pool.next == pool.words.count {
                let fetched = pool.words.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) }
                if fetched != 0 {
                    // getentropy fails only without the syscall (kernels before 3.17).
                    var system = SystemRandomNumberGenerator()
                    for index in pool.words.indices { pool.words[index] = system.next() }
                }
                pool.next = 0
            }
            defer { pool.next += 1 }
            return pool.words[pool.next]
        }
    }

    /// getentropy gives at most 256 bytes a call.
    private static let pool = Mutex<(words: [UInt64], next: Int)>(([UInt64](repeating: 0, count: 32), 32))
}
