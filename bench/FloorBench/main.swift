// The floor for many small uploads through AsyncHTTPClient alone: each file
// read whole, wrapped in a one-part multipart body and POSTed, N at a time,
// on the shared event loops, with nothing else of hoist's (no engine, no
// journal, no history, no output). bench/send.sh runs it in each round of its
// 1,000-file case, beside curl -Z.
// Usage: hoist-bench-floor [-k] URL CONCURRENCY FILE...   (-k: no certificate check)
import AsyncHTTPClient
import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

var arguments = CommandLine.arguments
let insecure = arguments.count > 1 && arguments[1] == "-k"
if insecure { arguments.remove(at: 1) }
guard arguments.count >= 4, let concurrency = Int(arguments[2]), concurrency > 0 else {
    printError("usage: hoist-bench-floor [-k] URL CONCURRENCY FILE...")
    exit(2)
}
@Sendable func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = write(2, &bytes, bytes.count)
}

let url = arguments[1]
let files = Array(arguments[3...])
let boundary = "hoist-floor-boundary-7d1c9a"

/// The file as a multipart/form-data body of one part, `file`.
func body(of path: String) -> ByteBuffer {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { fatalError("cannot open \(path)") }
    defer { close(fd) }
    var info = stat()
    fstat(fd, &info)
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let head =
        "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\n"
        + "Content-Type: application/octet-stream\r\n\r\n"
    let tail = "\r\n--\(boundary)--\r\n"
    var buffer = ByteBufferAllocator().buffer(capacity: head.utf8.count + Int(info.st_size) + tail.utf8.count)
    buffer.writeString(head)
    let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Int(info.st_size)) {
        Glibc.read(fd, $0.baseAddress, Int(info.st_size))
    }
    guard read == Int(info.st_size) else { fatalError("short read of \(path)") }
    buffer.writeString(tail)
    return buffer
}

var tls = TLSConfiguration.makeClientConfiguration()
if insecure { tls.certificateVerification = .none }
let client = HTTPClient(
    eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton),
    configuration: .init(tlsConfiguration: tls, redirectConfiguration: .disallow, decompression: .disabled))

let failures = NIOLockedValueBox(0)
let done = DispatchSemaphoreStandIn(value: 0)

/// Keeps `concurrency` requests in flight; each completion starts the next file.
final class Feeder: @unchecked Sendable {
    let lock = NIOLock()
    var next = 0
    func start() {
        let index: Int? = lock.withLock {
            guard next < files.count else { return nil }
            defer { next += 1 }
            return next
        }
        guard let index else { return }
        var request = try! HTTPClient.Request(url: url, method: .POST)
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        request.body = .byteBuffer(body(of: files[index]))
        client.execute(request: request).whenComplete { result in
            switch result {
            case .success(let response):
                if response.status != .ok { failures.withLockedValue { $0 += 1 } }
                if let body = response.body { print(String(buffer: body)) }
            case .failure(let error):
                printError("\(files[index]): \(error)")
                failures.withLockedValue { $0 += 1 }
            }
            self.finished()
        }
    }
    var finishedCount = 0
    func finished() {
        let all = lock.withLock { () -> Bool in
            finishedCount += 1
            return finishedCount == files.count
        }
        if all { done.signal() } else { start() }
    }
}

let feeder = Feeder()
for _ in 0..<min(concurrency, files.count) { feeder.start() }
done.wait()
try client.syncShutdown()
exit(failures.withLockedValue { $0 } == 0 ? 0 : 1)

/// A counting semaphore from a mutex and a condition (no Dispatch or Foundation).
final class DispatchSemaphoreStandIn: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var value: Int
    init(value: Int) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }
    func signal() {
        pthread_mutex_lock(&mutex)
        value += 1
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }
    func wait() {
        pthread_mutex_lock(&mutex)
        while value == 0 { pthread_cond_wait(&condition, &mutex) }
        value -= 1
        pthread_mutex_unlock(&mutex)
    }
}
