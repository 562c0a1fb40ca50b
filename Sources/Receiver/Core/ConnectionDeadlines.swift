import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// The receiver's answer to clients that hold a connection without sending
/// (slowloris): the first request's head must be in within `headTimeout`,
/// else a 408 with a JSON error and the connection closes; a body with no
/// bytes for `idleTimeout` fails the request (the handler answers 408); a
/// kept-alive connection with no new request for `idleTimeout` is closed.
/// It sits after the HTTP decoder, so it counts decoded parts, not bytes: a
/// head sent a byte at a time is still one late head. A body counts as
/// stalled only while the handler is asking for more (a `read` passed
/// down): a receiver that reads slowly on purpose is not the client's fault.
final class ConnectionDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the body reader sees in place of the next chunk when the client stalls.
    struct BodyStalled: Error {}

    private enum Phase {
        /// Waiting for a request's head; the first one answers 408 when late.
        case awaitingHead(first: Bool)
        case readingBody
        /// The whole request is in; the handler is answering.
        case answering
        case done
    }

    private let headTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private var phase = Phase.awaitingHead(first: true)
    private var lastActivity = NIODeadline.now()
    /// Since when the handler has asked for data and none came.
    private var readRequestedAt: NIODeadline?
    private var check: Scheduled<Void>?

    init(headTimeout: Duration, idleTimeout: Duration) {
        self.headTimeout = TimeAmount(headTimeout)
        self.idleTimeout = TimeAmount(idleTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        lastActivity = .now()
        schedule(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func read(context: ChannelHandlerContext) {
        if readRequestedAt == nil { readRequestedAt = .now() }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = .now()
        readRequestedAt = nil
        switch unwrapInboundIn(data) {
        case .head: phase = .readingBody
        case .body: break
        case .end: phase = .answering
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), case .answering = phase {
            phase = .awaitingHead(first: false)
            lastActivity = .now()
        }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .done
        check?.cancel()
        context.fireChannelInactive()
    }

    private func schedule(_ context: ChannelHandlerContext) {
        let step = TimeAmount.nanoseconds(max(min(headTimeout, idleTimeout).nanoseconds / 4, 10_000_000))
        check = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: step) { [self] in
            check = nil
            guard tick(context) else { return }
            schedule(context)
        }
    }

    /// `false` once there is nothing more to watch.
    private func tick(_ context: ChannelHandlerContext) -> Bool {
        let now = NIODeadline.now()
        let waited = now - lastActivity
        let starved = readRequestedAt.map { now - $0 } ?? .zero
        switch phase {
        case .awaitingHead(first: true) where waited >= headTimeout:
            answerTimeout(context)
            return false
        case .awaitingHead(first: false) where waited >= idleTimeout:
            phase = .done
            context.close(promise: nil)
            return false
        case .readingBody where starved >= idleTimeout:
            // The handler is reading the body: its next read fails, and it answers 408.
            phase = .answering
            context.fireErrorCaught(BodyStalled())
            return true
        case .done:
            return false
        default:
            return true
        }
    }

    private func answerTimeout(_ context: ChannelHandlerContext) {
        phase = .done
        let seconds = Self.seconds(.nanoseconds(headTimeout.nanoseconds))
        let body = ByteBuffer(
            string: #"{"error":"the request head did not arrive within \#(seconds) s (--head-timeout)"}"#)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentLength] = "\(body.readableBytes)"
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .requestTimeout, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

extension ConnectionDeadlines {
    /// `20`, `0.5`: a duration as the flags take it.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds)" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18)"
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
