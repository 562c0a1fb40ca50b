import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A bare TCP client, for what curl cannot show: sending part of a body and reading the answer
/// before sending the rest. Blocking calls run on their own thread, off the concurrency pool.
enum RawSocket {
    /// Connects to 127.0.0.1:`port`, sends `bytes`, and reads until `complete` says the reply is whole,
    /// the peer closes, or 20 s pass. Returns what was read.
    static func exchange(port: Int, send bytes: [UInt8], until complete: @escaping @Sendable ([UInt8]) -> Bool)
        async -> [UInt8]
    {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: blockingExchange(port: port, bytes: bytes, complete: complete))
            }
        }
    }

    private static func blockingExchange(port: Int, bytes: [UInt8], complete: ([UInt8]) -> Bool) -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return [] }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, 0) }
            guard sent > 0 else { return [] }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !complete(received) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }
}
