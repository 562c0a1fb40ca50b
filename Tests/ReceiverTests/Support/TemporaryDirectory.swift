import Foundation

/// Names in a directory, sorted; empty when it does not exist.
func listing(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// Deterministic pseudo-random bytes (xorshift), so failures can be reproduced.
func pseudoRandomBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed | 1
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        var index = 0
        while index < count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            var word = state
            for _ in 0..<8 where index < count {
                raw[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }
    return bytes
}

/// Writes a large file in 1 MiB blocks (each block different) without holding it in memory.
func writeLargeFile(_ path: String, mebibytes: Int) -> String {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = FileHandle(forWritingAtPath: path)!
    var block = pseudoRandomBytes(1 << 20)
    for index in 0..<mebibytes {
        withUnsafeBytes(of: UInt64(index)) { counter in
            for (offset, byte) in counter.enumerated() { block[offset] = byte }
        }
        handle.write(Data(block))
    }
    try? handle.close()
    return path
}
