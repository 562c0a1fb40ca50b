import FoundationEssentials
import Glibc

// What Hoist used from the full Foundation, which links ICU's 34 MB of
// data and slows every start: FoundationEssentials has none of these.

/// A thread of its own for work that must not hold a pool thread (a
/// lowered priority is per thread on Linux) or the caller's: pthreads,
/// because Foundation's `Thread` would link the whole of Foundation.
public enum DetachedThread {
    public static func start(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attributes) }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { pointer in
                Unmanaged<Box>.fromOpaque(pointer!).takeRetainedValue().body()
                return nil
            }, box)
        if status != 0 {
            // No thread to be had (a process at its limit): run it here rather than lose it.
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        }
    }
}

extension StringProtocol {
    /// Without any of `set`'s characters at either end (Foundation's
    /// `trimmingCharacters(in:)` for a plain set, without Foundation).
    public func trimmingCharacters(in set: String) -> String {
        String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}

/// The user's home folder: `$HOME`, else the password database (as
/// Foundation's `NSHomeDirectory`).
public func homeDirectory() -> String {
    if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let directory = entry.pw_dir
    else { return "/" }
    return String(cString: directory)
}

/// `date` in UTC by a `strftime` format (`%Y%m%dT%H%M%SZ`), to the second.
public func utcTimestamp(_ date: Date, format: String) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, format, &parts)
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A mutex for state shared between threads (Foundation's `NSLock`).
public final class ThreadLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

extension String {
    /// Cut or filled with spaces to `length` characters (Foundation's
    /// `padding(toLength:withPad:startingAt:)` with a space).
    public func padded(to length: Int) -> String {
        count >= length ? String(prefix(length)) : self + String(repeating: " ", count: length - count)
    }
}
