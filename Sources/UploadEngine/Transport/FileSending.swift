/// How file parts reach a plaintext HTTP/1.1 socket. Over TLS, every byte is
/// read on NIO's thread pool and encrypted.
public enum FileSending: Sendable, Equatable {
    /// Mapped slices under a lease (`LeasedFile`) to a server on this
    /// machine, sendfile to any other.
    case automatic
    /// sendfile to every server.
    case sendfile
    /// Read on the thread pool, as over TLS.
    case threadPool

    enum Method: Equatable {
        case mapped, sendfile, threadPool
    }

    /// The method for one request. Mapped slices only on loopback: there the
    /// receiver shares this machine and copies out of what sendfile leaves
    /// in the socket far more slowly (see `LeasedFile`); across a network,
    /// sendfile costs the sender least and the receiver nothing.
    func method(scheme: String, host: String, proxied: Bool) -> Method {
        guard scheme == "http", self != .threadPool else { return .threadPool }
        return self == .automatic && !proxied && Self.isLoopback(host) ? .mapped : .sendfile
    }

    public static func isLoopback(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
