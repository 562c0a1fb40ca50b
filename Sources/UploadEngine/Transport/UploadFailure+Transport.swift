import AsyncHTTPClient
import FormData
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

extension UploadFailure {
    /// Maps AsyncHTTPClient and NIO errors to messages a user can act on.
    init(transportError error: any Error, timeouts: Timeouts) {
        switch error {
        case is IdleTimeout:
            self = .idleTimeout(timeouts.idle)
        case is AnswerTimeout:
            self = .answerTimeout(timeouts.answer)
        case let error as FormDataError:
            self = .input(error)
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout: self = .connectTimeout(timeouts.connect)
            case .deadlineExceeded: self = .totalTimeout(timeouts.total ?? .zero)
            case .readTimeout, .writeTimeout: self = .idleTimeout(timeouts.idle)
            case .cancelled: self = .cancelled(reason: "cancelled by the user")
            case .remoteConnectionClosed: self = .connectionLost("the server closed the connection")
            default: self = .other("\(error)")
            }
        case let error as NIOConnectionError:
            let cause =
                error.connectionErrors.last.map { "\($0.error)" } ?? error.dnsAAAAError.map { "\($0)" } ?? "\(error)"
            if error.connectionErrors.isEmpty, let lookup = Self.lookupFailure(error) {
                // No such name is final; a DNS server that did not answer (EAI_AGAIN) may answer next time.
                self =
                    lookup.isNoSuchName
                    ? .unknownHost(error.host)
                    : .connectionFailed("\(error.host): the name lookup failed (\(lookup.reason))")
            } else {
                self = .connectionFailed("\(error.host):\(error.port): \(Self.describe(cause))")
            }
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: self = .connectionFailed("connection refused")
            case ECONNRESET, EPIPE: self = .connectionLost("connection reset by the server")
            default: self = .connectionLost(error.description)
            }
        case let error as ChannelError:
            switch error {
            case .connectTimeout: self = .connectTimeout(timeouts.connect)
            case .ioOnClosedChannel, .outputClosed, .eof, .alreadyClosed:
                self = .connectionLost("the connection was closed")
            default: self = .other("\(error)")
            }
        case let error as HTTPParserError where error == .invalidEOFState:
            self = .connectionLost("the server closed the connection in the middle of its answer")
        case let error as NIOSSLError:
            let text = "\(error)"
            if text.contains("WRONG_VERSION_NUMBER") {
                self = .tls("the server does not speak TLS on this port (is the URL http://?)")
            } else if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate") {
                self = .tls("the server's certificate is not trusted; use --insecure only for a server you trust")
            } else {
                self = .tls(text)
            }
        case is CancellationError:
            self = .cancelled(reason: "cancelled by the user")
        default:
            let text = "\(error)"
            if text.contains("connection reset") || text.contains("ECONNRESET") {
                self = .connectionLost(text)
            } else if text.contains("refused") {
                self = .connectionFailed(text)
            } else {
                self = .other(text)
            }
        }
    }

    /// Why getaddrinfo found no address, from NIO's `SocketAddressError.UnknownHost`.
    private static func lookupFailure(_ error: NIOConnectionError) -> (isNoSuchName: Bool, reason: String)? {
        guard let lookup = (error.dnsAAAAError ?? error.dnsAError) as? SocketAddressError.UnknownHost else {
            return nil
        }
        // EAI_NONAME, and glibc's EAI_NODATA (-5: the name has no address).
        return ([Int(EAI_NONAME), -5].contains(lookup.errorCode), lookup.errorDescription)
    }

    private static func describe(_ text: String) -> String {
        text.contains("refused") || text.contains("111") ? "connection refused" : text
    }
}
