import CLinux
import Dispatch
import FormData
import Synchronization
import WireRules

#if canImport(Glibc)
    import Glibc
#endif

extension CRC32C {
    private static let hardware = hoist_crc32c_in_hardware() != 0

    /// `update`, with SSE4.2's crc32 instruction where the CPU has it
    /// (about 8 bytes a cycle, where the table does one).
    mutating func updateFast(_ bytes: UnsafeRawBufferPointer) {
        #if arch(x86_64)
            if Self.hardware, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                self = CRC32C(value: hoist_crc32c_hardware(value, base, bytes.count))
                return
            }
        #endif
        update(bytes)
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
        var crc = CRC32C()
        var offset: Int64 = 0
        while offset < snapshot.size {
            let count = pread(fd, buffer.baseAddress, min(size, Int(snapshot.size - offset)), off_t(offset))
            guard count > 0 else { return .failure(.other("cannot read \(path) to check what GCS stored")) }
            crc.updateFast(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            offset += Int64(count)
        }
        guard FileSnapshot(path: path) == snapshot else {
            return .failure(.other("\(path) changed while it was being sent"))
        }
        return .success(crc.value)
    }
}
