import AsyncHTTPClient
import FormData
import Glibc
import NIOCore
import Testing

@testable import UploadEngine

/// NIO and AsyncHTTPClient errors become failures a user can act on.
@Suite struct TransportErrorTests {
    let timeouts = Timeouts(connect: .seconds(3), idle: .seconds(4), total: .seconds(5))

    func failure(_ error: any Error) -> UploadFailure {
        UploadFailure(transportError: error, timeouts: timeouts)
    }

    @Test func timeoutsNameTheLimitThatRanOut() {
        #expect(failure(IdleTimeout()) == .idleTimeout(.seconds(4)))
        #expect(failure(HTTPClientError.connectTimeout) == .connectTimeout(.seconds(3)))
        #expect(failure(HTTPClientError.deadlineExceeded) == .totalTimeout(.seconds(5)))
        #expect(failure(HTTPClientError.readTimeout) == .idleTimeout(.seconds(4)))
        #expect(failure(HTTPClientError.writeTimeout) == .idleTimeout(.seconds(4)))
        #expect(failure(ChannelError.connectTimeout(.seconds(3))) == .connectTimeout(.seconds(3)))
        let noTotal = UploadFailure(transportError: HTTPClientError.deadlineExceeded, timeouts: Timeouts())
        #expect(noTotal == .totalTimeout(.zero))
    }

    @Test func brokenConnections() {
        let reset = UploadFailure.connectionLost("connection reset by the server")
        #expect(failure(HTTPClientError.remoteConnectionClosed) == .connectionLost("the server closed the connection"))
        #expect(failure(IOError(errnoCode: ECONNREFUSED, reason: "connect")) == .connectionFailed("connection refused"))
        #expect(failure(IOError(errnoCode: ECONNRESET, reason: "read")) == reset)
        #expect(failure(IOError(errnoCode: EPIPE, reason: "write")) == reset)
        #expect(failure(ChannelError.eof) == .connectionLost("the connection was closed"))
        #expect(failure(ChannelError.ioOnClosedChannel) == .connectionLost("the connection was closed"))
    }

    @Test func cancellationAndInput() {
        #expect(failure(HTTPClientError.cancelled) == .cancelled(reason: "cancelled by the user"))
        #expect(failure(CancellationError()) == .cancelled(reason: "cancelled by the user"))
        let input = FormDataError.fileNotFound(field: "f", path: "/nowhere")
        #expect(failure(input) == .input(input))
    }

    @Test func otherErrorsKeepTheirText() {
        struct Odd: Error, CustomStringConvertible { var description: String }
        #expect(failure(Odd(description: "connection reset by peer")) == .connectionLost("connection reset by peer"))
        #expect(failure(Odd(description: "it was refused")) == .connectionFailed("it was refused"))
        #expect(failure(Odd(description: "strange")) == .other("strange"))
    }
}
