/// Why a request did not get its normal answer. Each case says what went wrong and, where it helps, what to do.
enum ReceiverError: Error, Equatable {
    /// 400: the body is not what its Content-Type says.
    case badRequest(String)
    /// 401: a token is required and the request did not carry it.
    case unauthorized(String)
    /// 403: a browser page of another site sent the request.
    case forbidden(String)
    /// 413: the body (or one form field) is larger than allowed.
    case payloadTooLarge(String)
    /// 408: the client stopped sending the body.
    case requestTimeout(String)
    /// 500: a file could not be written.
    case saveFailed(String)
    /// The `resetFirst` knob fired: close the connection abruptly, answer nothing.
    case resetConnection
    /// The client went away mid-body; nobody is left to answer.
    case clientGone(String)

    /// HTTP status to answer with; `nil` when no answer is written.
    var status: Int? {
        switch self {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .payloadTooLarge: 413
        case .requestTimeout: 408
        case .saveFailed: 500
        case .resetConnection, .clientGone: nil
        }
    }

    var message: String {
        switch self {
        case .badRequest(let message), .unauthorized(let message), .forbidden(let message),
            .payloadTooLarge(let message), .requestTimeout(let message), .saveFailed(let message),
            .clientGone(let message):
            message
        case .resetConnection: "connection reset on purpose (resetFirst)"
        }
    }
}
