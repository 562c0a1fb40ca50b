import CLinux
import Dispatch
import FormData
import Synchronization
import WireRules

#if canImport(Glibc)
    import Glibc
#endif

/// CRC-32C (Castagnoli), the checksum GCS keeps of each object: in
/// hardware where the CPU has it (SSE4.2), else by table.
enum CRC32C {
    private static let hardware = hoist_crc32c_in_hardware() != 0

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        return value
    }

    /// `crc` continued over `bytes` (0 to begin).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return crc }
        #if arch(x86_64)
            if hardware { return hoist_crc32c_hardware(crc, base, bytes.count) }
        #endif
        return byTable(crc, UnsafeBufferPointer(start: base, count: bytes.count))
    }

    static func byTable(_ crc: UInt32, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var value = ~crc
        for byte in bytes {
            value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8)
        }
        return ~value
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { update(0, $0) }
    }

    /// As GCS writes it: base64 of the 4 bytes, big-endian.
    static func base64(_ crc: UInt32) -> String {
        let bytes = [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return String(decoding: Base64.encode(bytes), as: UTF8.self)
    }
}

/// A file's CRC-32C, read off the engine's queue while its upload goes:
/// ready by the time its last chunk leaves, which carries it.
final class FileCRC32C: Sendable {
    private enum State {
        case reading([@Sendable (Result<UInt32, UploadFailure>) -> Void])
        case ready(Result<UInt32, UploadFailure>)
    }

    private let state = Mutex<State>(.reading([]))

    init(path: String, snapshot: FileSnapshot) {
        DispatchQueue.global(qos: .utility).async { [self] in
            let result = Self.read(path, snapshot)
            let waiting = state.withLock { state -> [@Sendable (Result<UInt32, UploadFailure>) -> Void] in
                defer { state = .ready(result) }
                if case .reading(let waiting) = state { return waiting }
                return []
            }
            for body in waiting { body(result) }
        }
    }

    /// `body` gets the checksum on `queue` once it is known.
    func whenReady(on queue: DispatchQueue, _ body: @escaping @Sendable (Result<UInt32, UploadFailure>) -> Void) {
        let ready = state.withLock { state -> Result<UInt32, UploadFailure>? in
            switch state {
            case .reading(let waiting):
                state = .reading(waiting + [{ result in queue.async { body(result) } }])
                return nil
            case .ready(let result):
                return result
            }
        }
        if let ready { queue.async { body(ready) } }
    }

    private static func read(_ path: String, _ snapshot: FileSnapshot) -> Result<UInt32, UploadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.other("cannot read \(path) to check what GCS stored")) }
        defer { close(fd) }
        let size = 4 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 4096)
        defer { buffer.deallocate() }
        var crc: UInt32 = 0
        var offset: Int64 = 0
        while offset < snapshot.size {
            let count = pread(fd, buffer.baseAddress, min(size, Int(snapshot.size - offset)), off_t(offset))
            guard count > 0 else { return .failure(.other("cannot read \(path) to check what GCS stored")) }
            crc = CRC32C.update(crc, UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
        }
        guard FileSnapshot(path: path) == snapshot else {
            return .failure(.other("\(path) changed while it was being sent"))
        }
        return .success(crc)
    }
}
