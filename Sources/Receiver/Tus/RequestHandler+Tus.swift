import Hummingbird
import HummingbirdCore
import NIOCore

// The tus endpoint's place in the request flow: the server-wide knobs first, then the tus checks, then
// `100 Continue` and the body. Every request lands in the record, answered or reset.
extension RequestHandler {
    func answerTus(
        _ request: Request, route: TusRoute, tus: TusService, index: Int, resetAfter: Int64?,
        reader: inout IncomingBodyReader, writer: borrowing ResponseWriter
    ) async throws(ReceiverError) -> Answer {
        var record = TusRequestRecord(method: request.method.rawValue, path: request.uri.path, status: 0)
        let answer: Answer
        do throws(ReceiverError) {
            answer = try await tusAnswer(
                request, route: route, tus: tus, index: index, resetAfter: resetAfter, reader: &reader,
                record: &record, writer: writer)
        } catch {
            record.bodyBytes = reader.bytesRead
            if let status = error.status {
                record.status = status
                tus.append(record)
                return .tus(TusFailure(status: status, message: error.message))
            }
            tus.append(record)
            throw error
        }
        record.bodyBytes = reader.bytesRead
        record.status = answer.status
        tus.append(record)
        return answer
    }

    private func tusAnswer(
        _ request: Request, route: TusRoute, tus: TusService, index: Int, resetAfter: Int64?,
        reader: inout IncomingBodyReader, record: inout TusRequestRecord, writer: borrowing ResponseWriter
    ) async throws(ReceiverError) -> Answer {
        if resetAfter == 0 { throw .resetConnection }
        if configuration.refuses(request: index) {
            try await reader.drain()
            var refusal = configuration.refusal
            refusal.headers = [("Tus-Resumable", TusProtocol.version)]
            return refusal
        }
        let step: TusStep
        do throws(TusFailure) {
            step = try await tus.decide(request, route: route, record: &record)
        } catch {
            step = .answer(.tus(error))
        }
        switch step {
        case .answer(let answer):
            // A body that never comes need not keep the connection from being reused; one that does is
            // left unread, and the connection is closed after the answer.
            if !TusHeaders({ name in HTTPFields.Element.Name(name).flatMap { request.headers[$0] } }).hasBody {
                try await reader.drain()
            }
            return answer
        case .receive(let receipt):
            if request.headers[.expect]?.lowercased() == "100-continue" {
                try? await writer.writeInformationalHead(HTTPResponse(status: .continue))
            }
            return try await tus.receive(receipt, reader: &reader, record: &record)
        }
    }
}
