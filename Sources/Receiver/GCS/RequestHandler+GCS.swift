import Hummingbird
import HummingbirdCore
import NIOCore

// The Cloud Storage endpoint's place in the request flow: the server-wide knobs first (reset, 503), then
// the checks on the headers, then `100 Continue` and the body.
extension RequestHandler {
    func answerGCS(
        _ request: Request, route: GCSRoute, gcs: GCSService, index: Int, resetAfter: Int64?,
        reader: inout IncomingBodyReader, writer: borrowing ResponseWriter, localPort: Int?
    ) async throws(ReceiverError) -> Answer {
        if resetAfter == 0 { throw .resetConnection }
        if configuration.refuses(request: index) {
            try await reader.drain()
            var answer = GCSFailure(
                status: 503,
                message: "The receiver refuses the first \(configuration.failFirst) request(s) (failFirst);"
                    + " retry after \(configuration.retryAfterSeconds) s", reason: "backendError"
            ).answer
            answer.retryAfter = configuration.retryAfterSeconds
            return answer
        }
        let baseURL = gcs.baseURL(host: request.head.authority, localPort: localPort)
        let step: GCSStep
        do throws(GCSFailure) {
            step = try await gcs.decide(request, route: route, baseURL: baseURL)
        } catch {
            step = .answer(error.answer)
        }
        switch step {
        case .answer(let answer):
            // A body that never comes need not keep the connection from being reused; one that does is
            // left unread, and the connection is closed after the answer.
            if !Self.hasBody(request) { try await reader.drain() }
            return answer
        case .initiate(let initiation):
            var body: [UInt8] = []
            while let chunk = try await reader.next() {
                guard body.count + chunk.readableBytes <= GCSService.maxMetadataBytes else {
                    return GCSFailure.invalid("The metadata body is larger than \(GCSService.maxMetadataBytes) bytes")
                        .answer
                }
                body += chunk.readableBytesView
            }
            do throws(GCSFailure) {
                return try gcs.initiate(initiation, body: body, baseURL: baseURL)
            } catch {
                return error.answer
            }
        case .receive(let receipt):
            if request.headers[.expect]?.lowercased() == "100-continue" {
                try? await writer.writeInformationalHead(HTTPResponse(status: .continue))
            }
            defer { gcs.endMedia(receipt) }
            return try await gcs.receive(receipt, reader: &reader, baseURL: baseURL)
        }
    }

    private static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength].flatMap(Int64.init) { return length > 0 }
        return request.headers[.transferEncoding] != nil
    }
}

extension GCSService {
    /// `scheme://HOST:PORT` as the client reached the receiver (its `Host`), for the URLs handed out; a
    /// `Host` that is no plain host and port is not echoed into a header.
    func baseURL(host: String?, localPort: Int?) -> String {
        let allowed = { (byte: UInt8) in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                UInt8(ascii: "["), UInt8(ascii: "]"):
                true
            default: false
            }
        }
        if let host, !host.isEmpty, host.utf8.count <= 255, host.utf8.allSatisfy(allowed) {
            return scheme + "://" + host
        }
        return scheme + "://127.0.0.1" + (localPort.map { ":\($0)" } ?? "")
    }
}
