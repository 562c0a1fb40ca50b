import Hummingbird
import HummingbirdCore
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Writing the answer and ending the connection: a plain close, a reset, or a lingering close.
extension RequestHandler {
    func write(
        _ answer: Answer, for request: Request, closing: Bool, to writer: consuming ResponseWriter
    ) async throws {
        var answer = answer
        if answer.status >= 400 { answer.body = relativePaths(answer.body) }
        var headers = HTTPFields()
        if !answer.contentType.isEmpty { headers[.contentType] = answer.contentType }
        // A 204 has no body, and must not say how long it is.
        if answer.status != 204 { headers[.contentLength] = String(answer.file?.length ?? Int64(answer.body.count)) }
        if let retryAfter = answer.retryAfter { headers[.retryAfter] = String(retryAfter) }
        for (name, value) in answer.headers {
            if let name = HTTPFields.Element.Name(name) { headers.append(HTTPFields.Element(name: name, value: value)) }
        }
        if closing { headers[.connection] = "close" }
        let head = HTTPResponse(
            status: .init(code: answer.status, reasonPhrase: answer.reason ?? ""), headerFields: headers)
        if request.method == .head {
            try await writer.writeResponse(head)
        } else {
            let body = answer.file?.body ?? ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
            try await writer.write(response: head, body: body)
        }
    }

    /// An error's text with the upload folder's absolute path taken out: a
    /// client learns `.tus is not a directory`, not where the server keeps files.
    private func relativePaths(_ body: [UInt8]) -> [UInt8] {
        let text = String(decoding: body, as: UTF8.self)
        guard text.contains(uploadFolder) else { return body }
        return Array(
            text.replacing(uploadFolder + "/", with: "").replacing(uploadFolder, with: "the upload folder").utf8)
    }

    /// Closes with a TCP reset: SO_LINGER 0 makes close() send RST instead of FIN.
    static func reset(_ channel: any Channel) async {
        if let socket = channel as? any SocketOptionProvider {
            try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }

    /// Reads and discards what is left of the body for at most `within`, then closes the connection.
    ///
    /// Closing right away with unread bytes in the socket would send a reset, and the client could lose
    /// the answer it has not read yet (the "lingering close" nginx and Apache do).
    static func drainAndClose(_ channel: any Channel, reader: inout IncomingBodyReader, within: Duration) async {
        let components = within.components
        let timeout = channel.eventLoop.scheduleTask(
            in: .seconds(components.seconds) + .nanoseconds(components.attoseconds / 1_000_000_000)
        ) {
            channel.close(promise: nil)
        }
        await reader.discardRest()
        timeout.cancel()
        try? await channel.close()
    }

    /// The client's address for the log: `127.0.0.1:54321`, `[::1]:54321`.
    static func describe(_ address: SocketAddress?) -> String? {
        guard let address, let ip = address.ipAddress else { return nil }
        let host = ip.contains(":") ? "[\(ip)]" : ip
        return address.port.map { "\(host):\($0)" } ?? host
    }
}
