import Glibc

/// A fresh directory under /tmp (or `parent`), removed when the test is done
/// with it, or at the latest when the test process exits: a global is never
/// released, and a test's deferred clean-up task may not run before the exit.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(in parent: String = "/tmp") {
        var template = Array((parent + "/hoist-tests-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(errno)")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(path, 0o755)
        liveFolders.insert(path)
    }

    deinit {
        removeTree(path)
        liveFolders.remove(path)
    }

    /// Writes `bytes` to a file in the directory and returns its path.
    @discardableResult
    public func file(_ name: String, _ bytes: [UInt8], mode: mode_t = 0o644) -> String {
        let full = path + "/" + name
        let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, mode)
        precondition(fd >= 0, "cannot create \(full): \(errno)")
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            precondition(count > 0)
            done += count
        }
        close(fd)
        chmod(full, mode)
        return full
    }

    @discardableResult
    public func file(_ name: String, text: String, mode: mode_t = 0o644) -> String {
        file(name, Array(text.utf8), mode: mode)
    }

    /// A path inside the directory (nothing is created).
    public func sub(_ name: String) -> String {
        path + "/" + name
    }

    public func directory(_ name: String) -> String {
        let full = path + "/" + name
        mkdir(full, 0o755)
        return full
    }
}

/// The folders not removed yet, removed at exit.
private let liveFolders: LockedSet<String> = {
    // Run after handlers registered later (atexit runs them last first): a
    // test helper that stops what runs in the folders registers its own.
    atexit { for path in liveFolders.all { removeTree(path) } }
    return LockedSet()
}()

/// A set shared between threads.
public final class LockedSet<Element: Hashable & Sendable>: @unchecked Sendable {
    private var elements: Set<Element> = []
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func insert(_ element: Element) { locked { _ = elements.insert(element) } }
    public func remove(_ element: Element) { locked { _ = elements.remove(element) } }
    public var all: Set<Element> { locked { elements } }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}

/// Whether `path` is on tmpfs, whose pages live only in memory: there
/// `posix_fadvise(POSIX_FADV_DONTNEED)` cannot take a file out of the page cache.
public func isOnTmpfs(_ path: String) -> Bool {
    // Glibc's module leaves out <sys/vfs.h>: statfs is looked up, as setfsuid
    // is below. Its struct starts with the file system type, a C long.
    typealias StatFS = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "statfs") else { return false }
    let statfs = unsafeBitCast(symbol, to: StatFS.self)
    let tmpfsMagic = 0x0102_1994
    // Room for struct statfs (120 bytes on 64-bit Linux) and then some.
    let info = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 8)
    defer { info.deallocate() }
    return statfs(path, info) == 0 && info.load(as: Int.self) == tmpfsMagic
}

/// A parent for files that tests evict from the page cache: /tmp, unless it
/// is tmpfs; then the package's .build or the current directory (`swift
/// test` runs in the package). nil when all of them are tmpfs.
public let pageCacheTestParent: String? = {
    var current = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let cwd = getcwd(&current, current.count).map { String(cString: $0) }
    let candidates = ["/tmp"] + (cwd.map { [$0 + "/.build", $0] } ?? [])
    return candidates.first { access($0, W_OK) == 0 && !isOnTmpfs($0) }
}()

public func removeTree(_ path: String) {
    guard let dir = opendir(path) else {
        unlink(path)
        return
    }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name == "." || name == ".." { continue }
        let child = path + "/" + name
        var info = stat()
        if lstat(child, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            removeTree(child)
        } else {
            unlink(child)
        }
    }
    closedir(dir)
    rmdir(path)
}

/// Random bytes from a seeded generator, so a failing case can be replayed.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) {
        self.state = state
    }

    public mutating func next() -> UInt64 {
        // SplitMix64.
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public func randomBytes(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
    var words = [UInt64](repeating: 0, count: (count + 7) / 8)
    for index in words.indices { words[index] = generator.next() }
    return words.withUnsafeBytes { Array($0.prefix(count)) }
}

/// Runs `body` with this thread's filesystem uid set to `nobody`, so that a
/// root test run sees file permissions the way a normal user does.
/// setfsuid is per-thread, and the closure is synchronous, so no other test is affected.
@discardableResult
public func asUnprivilegedUser<T>(_ body: () throws -> T) rethrows -> T {
    guard geteuid() == 0 else { return try body() }
    typealias SetFSUID = @convention(c) (UInt32) -> Int32
    let setfsuid = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setfsuid")!, to: SetFSUID.self)
    _ = setfsuid(65534)
    defer { _ = setfsuid(0) }
    return try body()
}
