import CLinux
import FormData
import Glibc
import NIOConcurrencyHelpers
@_spi(CustomByteBufferAllocator) import NIOCore

/// A file whose bytes go out as `ByteBuffer`s that map it, under a read
/// lease: the kernel copies each byte once, from the page cache into the
/// socket, when NIO writes the buffer.
///
/// Why not sendfile: on loopback the socket then holds references to
/// page-cache pages, and the receiver on this same machine spends more CPU
/// copying out of them than out of bytes the sender wrote (see
/// bench/README.md; with `bench/send.sh`'s sink, that copy is the bottleneck).
///
/// Why the lease: a write from a mapping of a file cut short fails with
/// EFAULT, on which NIO stops the process. While the lease is held, anyone
/// opening the file to write or truncating it waits in the kernel; the
/// slice pump sees the request (`breakRequested`) and fails the upload as
/// changed, and the lease ends when the last mapped buffer is gone. No lease (the file is open for
/// writing elsewhere, or belongs to another user), no mapping: the caller
/// uses sendfile.
final class LeasedFile: Sendable {
    private let descriptor: Int32
    private let state = NIOLockedValueBox(State())

    private struct State {
        var liveMappings = 0
        var ended = false
        var released = false
        var onUnmap: (@Sendable () -> Void)?
    }

    /// How long the kernel lets a lease holder keep a breaker waiting
    /// before it breaks the lease itself (`/proc/sys/fs/lease-break-time`).
    static let kernelBreakTime: TimeAmount = .seconds(
        Int64(readSmallFile("/proc/sys/fs/lease-break-time", limit: 64).flatMap { Int($0.filter(\.isNumber)) } ?? 0))

    /// How long a break may wait before the request holding the mappings is
    /// ended (`BodyStreamer.reasonToStop`), well before the kernel's time.
    static let breakGrace: TimeAmount = .seconds(min(10, kernelBreakTime.nanoseconds / 3_000_000_000))

    /// Takes a read lease through a duplicate of `descriptor`, kept until
    /// the lease ends: the caller may close its own at any time.
    /// Nil where the kernel would break a lease too soon to act on it.
    static func take(_ descriptor: Int32) -> LeasedFile? {
        guard breakGrace >= .seconds(2) else { return nil }
        let own = dup(descriptor)
        guard own >= 0 else { return nil }
        guard fcntl(own, hoist_F_SETLEASE, F_RDLCK) == 0 else {
            close(own)
            return nil
        }
        // No SIGIO on a break (its default action ends the process): breaks are polled.
        _ = fcntl(own, F_SETOWN, 0)
        return LeasedFile(descriptor: own)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Someone waits to write or truncate the file.
    var breakRequested: Bool {
        fcntl(descriptor, hoist_F_GETLEASE) != F_RDLCK
    }

    /// Mapped buffers not yet freed: NIO frees one once it has written it.
    var liveMappings: Int {
        state.withLockedValue { $0.liveMappings }
    }

    /// Calls `action` (on the freeing thread) each time a mapped buffer is
    /// freed; nil stops it.
    func whenUnmapped(_ action: (@Sendable () -> Void)?) {
        state.withLockedValue { $0.onUnmap = action }
    }

    /// Every page of the range is in the page cache, so mapping it with
    /// `MAP_POPULATE` will not wait for a disk. False where the kernel cannot
    /// tell (`cachestat`, Linux 6.5).
    func isCached(offset: Int64, length: Int) -> Bool {
        let first = offset / Self.pageSize
        let last = (offset + Int64(length) + Self.pageSize - 1) / Self.pageSize
        return hoist_cached_pages(descriptor, off_t(offset), length) == last - first
    }

    private static let pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))

    /// Maps `length` bytes from `offset`; nil if the file cannot be mapped,
    /// or once the lease has ended.
    func map(offset: Int64, length: Int) -> ByteBuffer? {
        // Counted first, so that the lease cannot end (and the descriptor
        // close) while the mapping is made.
        let open = state.withLockedValue { state -> Bool in
            guard !state.ended else { return false }
            state.liveMappings += 1
            return true
        }
        guard open else { return nil }
        let start = offset - offset % Self.pageSize
        let lead = Int(offset - start)
        let size = lead + length
        guard let base = mmap(nil, size, PROT_READ, MAP_SHARED | MAP_POPULATE, descriptor, off_t(start)),
            base != MAP_FAILED
        else {
            mappingEnded()
            return nil
        }
        Self.mappings.withLockedValue { $0[UInt(bitPattern: base)] = (size, self) }
        return ByteBuffer(
            takingOwnershipOf: UnsafeMutableRawBufferPointer(start: base, count: size),
            allocator: Self.allocator, readerIndex: lead, writerIndex: size)
    }

    /// No more mappings will be made; the lease ends with the last one.
    func end() {
        releaseIfUnused { $0.ended = true }
    }

    private func mappingEnded() {
        var onUnmap: (@Sendable () -> Void)?
        releaseIfUnused {
            $0.liveMappings -= 1
            onUnmap = $0.onUnmap
        }
        onUnmap?()
    }

    private func releaseIfUnused(after change: (inout State) -> Void) {
        let release = state.withLockedValue { state -> Bool in
            change(&state)
            guard state.ended, state.liveMappings == 0, !state.released else { return false }
            state.released = true
            return true
        }
        guard release else { return }
        // Explicitly: the lease belongs to the open file, which the caller's
        // descriptor (and any mapping) keeps open.
        _ = fcntl(descriptor, hoist_F_SETLEASE, F_UNLCK)
        close(descriptor)
    }

    /// Live mappings by address: their size, for `munmap`, and their file.
    private static let mappings = NIOLockedValueBox<[UInt: (size: Int, file: LeasedFile)]>([:])

    private static func forget(_ pointer: UnsafeMutableRawPointer) -> (size: Int, file: LeasedFile)? {
        mappings.withLockedValue { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
    }

    /// Unmaps a mapped buffer's memory and frees any other; a copy NIO makes
    /// of a buffer is plain memory.
    private static let allocator = ByteBufferAllocator(
        allocate: { size in malloc(size) },
        reallocate: { pointer, oldSize, newSize in
            guard let pointer, let mapped = LeasedFile.forget(pointer) else { return realloc(pointer, newSize) }
            let copy = malloc(newSize)
            if let copy { memcpy(copy, pointer, min(oldSize, newSize)) }
            munmap(pointer, mapped.size)
            mapped.file.mappingEnded()
            return copy
        },
        deallocate: { pointer in
            guard let mapped = LeasedFile.forget(pointer) else { return free(pointer) }
            munmap(pointer, mapped.size)
            mapped.file.mappingEnded()
        },
        copy: { destination, source, count in _ = memcpy(destination, source, count) }
    )
}
