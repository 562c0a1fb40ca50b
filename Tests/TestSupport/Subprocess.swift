import Dispatch
import Foundation
import Glibc

/// What a finished child process left behind.
public struct SubprocessResult: Sendable {
    /// The exit code, or 128 + the signal that ended it.
    public var status: Int32
    public var stdout: [UInt8]
    public var stderr: [UInt8]
    /// The child ran past its time limit and was killed.
    public var timedOut: Bool
}

/// A child process started with `posix_spawn` and reaped with `waitpid`.
///
/// Foundation's `Process` was not used: on this Linux toolchain its
/// `waitUntilExit` sometimes misses a child's exit (seen with the tmux client
/// that starts a tmux server), which hung the whole test run. Every child here
/// has a time limit, so a stuck program fails its test instead of the suite.
public final class Subprocess: @unchecked Sendable {
    public let pid: pid_t
    private let finished = DispatchSemaphore(value: 0)
    private var outcome: SubprocessResult?

    /// Starts `executable`. Its stdin is `/dev/null` unless `input` is given;
    /// `input` then runs on its own thread and the pipe is closed after it.
    public init(
        _ executable: String, _ arguments: [String], directory: String? = nil,
        environment: [String: String]? = nil, timeout: Duration = .seconds(300),
        input: (@Sendable (FileHandle) -> Void)? = nil
    ) throws {
        signal(SIGPIPE, SIG_IGN)
        let stdout = try Self.makePipe()
        let stderr = try Self.makePipe()
        let stdin = input == nil ? nil : try Self.makePipe()
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin?.read ?? devNull, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
        // Descriptors other threads open meanwhile must not leak into the child.
        _ = GNUSpawn.addCloseFrom(&actions, 3)
        if let directory { _ = GNUSpawn.addChdir(&actions, directory) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so a timeout kills what it started too.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environmentLines = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        let envp = environmentLines.map { $0.map { strdup($0) } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var spawnedPID: pid_t = 0
        let spawned =
            envp.map { envp in
                envp.withUnsafeBufferPointer {
                    posix_spawn(
                        &spawnedPID, executable, &actions, &attributes, argv,
                        UnsafeMutablePointer(mutating: $0.baseAddress))
                }
            } ?? posix_spawn(&spawnedPID, executable, &actions, &attributes, argv, environ)
        let child = spawnedPID
        close(devNull)
        close(stdout.write)
        close(stderr.write)
        if let stdin { close(stdin.read) }
        guard spawned == 0 else {
            [stdout.read, stderr.read].forEach { close($0) }
            if let stdin { close(stdin.write) }
            throw SubprocessError(message: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child

        if let input, let stdin {
            Self.detach {
                let handle = FileHandle(fileDescriptor: stdin.write, closeOnDealloc: true)
                input(handle)
                try? handle.close()
            }
        }
        let deadline = ContinuousClock.now + timeout
        Self.detach { [self] in
            let (out, err, timedOut) = Self.collect(stdout.read, stderr.read, until: deadline, killing: child)
            outcome = SubprocessResult(status: Self.reap(child), stdout: out, stderr: err, timedOut: timedOut)
            finished.signal()
        }
    }

    /// Blocks until the child has exited and its output is read.
    public func wait() -> SubprocessResult {
        finished.wait()
        finished.signal()
        return outcome!
    }

    /// Waits on a thread of its own, never on Swift's cooperative pool (which
    /// an in-process server under test needs) nor on Dispatch's small pool.
    public func result() async -> SubprocessResult {
        await withCheckedContinuation { continuation in
            Self.detach { continuation.resume(returning: self.wait()) }
        }
    }

    private static func detach(_ body: @escaping @Sendable () -> Void) {
        Thread(block: body).start()
    }

    /// Runs a program to completion.
    public static func run(
        _ executable: String, _ arguments: [String], directory: String? = nil,
        environment: [String: String]? = nil, timeout: Duration = .seconds(300),
        input: (@Sendable (FileHandle) -> Void)? = nil
    ) async throws -> SubprocessResult {
        try await Subprocess(
            executable, arguments, directory: directory, environment: environment, timeout: timeout, input: input
        ).result()
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw SubprocessError(message: "pipe failed: \(String(cString: strerror(errno)))")
        }
        fds.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Reads both pipes to their end, or kills the child's group at the deadline.
    private static func collect(
        _ out: Int32, _ err: Int32, until deadline: ContinuousClock.Instant, killing child: pid_t
    ) -> ([UInt8], [UInt8], Bool) {
        var collected: [Int32: [UInt8]] = [out: [], err: []]
        var open: Set<Int32> = [out, err]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var timedOut = false
        while !open.isEmpty {
            let left = deadline - ContinuousClock.now
            if left <= .zero {
                timedOut = true
                kill(-child, SIGKILL)
                kill(child, SIGKILL)
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let milliseconds = Int32(min(1000, max(1, left.components.seconds * 1000)))
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0, errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[entry.fd]! += buffer[0..<count]
                } else if count == 0 || errno != EINTR && errno != EAGAIN {
                    open.remove(entry.fd)
                }
            }
        }
        close(out)
        close(err)
        return (collected[out]!, collected[err]!, timedOut)
    }

    private static func reap(_ child: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

/// glibc's `_np` spawn actions, which the Glibc module does not export.
private enum GNUSpawn {
    typealias Actions = UnsafeMutablePointer<posix_spawn_file_actions_t>
    static let addCloseFrom = unsafeBitCast(
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")!, to: (@convention(c) (Actions, Int32) -> Int32).self)
    static let addChdir = unsafeBitCast(
        dlsym(nil, "posix_spawn_file_actions_addchdir_np")!,
        to: (@convention(c) (Actions, UnsafePointer<CChar>) -> Int32).self)
}

public struct SubprocessError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}

extension Subprocess {
    /// The port a server process itself is listening on, read from /proc.
    /// Servers are started on port 0: a port probed here and handed over
    /// could be taken by a receiver of a test running alongside before
    /// Python starts, and the test would then talk to that receiver.
    public static func listeningPort(of pid: pid_t) async throws -> Int {
        for _ in 0..<300 {
            let sockets = socketInodes(of: pid)
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                for line in (try? String(contentsOfFile: table, encoding: .utf8))?.split(separator: "\n").dropFirst()
                    ?? []
                {
                    // sl local_address rem_address st ... inode
                    let fields = line.split(separator: " ")
                    guard fields.count > 9, fields[3] == "0A", sockets.contains(String(fields[9])),
                        let port = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                    else { continue }
                    return port
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SubprocessError(message: "the server (pid \(pid)) did not listen within 30 s")
    }

    private static func socketInodes(of pid: pid_t) -> Set<String> {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(
            names.compactMap { name in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
    }
}
