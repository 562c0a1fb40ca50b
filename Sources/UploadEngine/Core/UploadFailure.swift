import FormData
import WireRules

/// Why an upload attempt or task failed. Each message says what was wrong
/// and, where it helps, what to do.
public enum UploadFailure: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidURL(String, reason: String)
    /// A local input problem: missing file, bad header, file changed while sending.
    case input(FormDataError)
    case connectionFailed(String)
    /// The host's name did not resolve (no such name, as opposed to a DNS
    /// server that did not answer): trying again would not change it.
    case unknownHost(String)
    case connectTimeout(Duration)
    case idleTimeout(Duration)
    /// The whole body was sent and no answer began within this long.
    case answerTimeout(Duration)
    case totalTimeout(Duration)
    /// The connection broke during the request (reset, closed by the server).
    case connectionLost(String)
    case tls(String)
    case httpStatus(Int, message: String?)
    /// A success status, but before the server had read the whole body.
    case answeredEarly(status: Int, sent: Int64, total: Int64?)
    case expectationFailed(path: String, expected: String, actual: String?, message: String?, reason: String?)
    case cancelled(reason: String)
    /// A resumable protocol's server answered something hoist cannot go on
    /// from (another tus version, no Location, a length that differs).
    case protocolError(String)
    case other(String)

    public var description: String {
        switch self {
        case let .invalidURL(url, reason): return "invalid URL \(String(reflecting: url)): \(reason)"
        case let .input(error): return error.description
        case let .connectionFailed(detail): return "cannot connect: \(detail)"
        case let .unknownHost(host):
            return "cannot connect: \(host): no such host (its name did not resolve; check the URL)"
        case let .connectTimeout(limit): return "no connection within \(seconds(limit)) (connect timeout)"
        case let .idleTimeout(limit): return "no bytes moved for \(seconds(limit)) (idle timeout)"
        case let .answerTimeout(limit):
            return
                "no answer within \(seconds(limit)) of the whole body being sent (answer timeout; the server may hold the upload)"
        case let .totalTimeout(limit): return "the attempt took longer than \(seconds(limit)) (total timeout)"
        case let .connectionLost(detail): return "connection lost during the request: \(detail)"
        case let .tls(detail): return "TLS failed: \(detail)"
        case let .httpStatus(status, message):
            let base = "HTTP \(status) \(HTTPStatusText.reason(status))"
            if status == 413 {
                return base + shown(message) + "; the server refused the body as too large"
            }
            return base + shown(message)
        case let .answeredEarly(status, sent, total):
            let of = total.map { " of \($0)" } ?? ""
            return
                "the server answered HTTP \(status) after only \(sent)\(of) bytes were sent; it did not read the whole upload"
        case let .expectationFailed(path, expected, actual, message, reason):
            var text = "expected \(path) = \(String(reflecting: expected))"
            if let reason {
                text += ", but \(reason)"
            } else {
                text += ", got \(actual.map { String(reflecting: $0) } ?? "nothing")"
            }
            return text + shown(message)
        case let .cancelled(reason): return Self.cancelled(reason)
        case let .protocolError(detail): return detail
        case let .other(detail): return detail
        }
    }

    /// The request's bytes may have reached the server even though no
    /// answer came back: the connection broke or the answer timed out.
    public var mayHaveReachedTheServer: Bool {
        switch self {
        case .connectionLost, .idleTimeout, .answerTimeout, .totalTimeout: return true
        default: return false
        }
    }

    /// `cancelled: the engine shut down`, but `cancelled by the user` as it is.
    public static func cancelled(_ reason: String) -> String {
        reason.hasPrefix("cancelled") ? reason : "cancelled: " + reason
    }

    /// A server's message as a description shows it: on the same line, with
    /// nothing a terminal would act on.
    private func shown(_ message: String?) -> String {
        message.map { ": " + TerminalText.escaped($0) } ?? ""
    }

    /// The server's own message (from the success rule's message path), if any.
    public var serverMessage: String? {
        switch self {
        case let .httpStatus(_, message): return message
        case let .expectationFailed(_, _, _, message, _): return message
        default: return nil
        }
    }
}

func seconds(_ duration: Duration) -> String {
    let value = ProgressMeter.seconds(duration)
    if value == value.rounded() { return "\(Int(value)) s" }
    return "\((value * 10).rounded() / 10) s"
}

/// Reason phrases for status lines and messages.
public enum HTTPStatusText {
    /// The reason phrase of a status code, or "" for an unusual one.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 203: return "Non-Authoritative Information"
        case 204: return "No Content"
        case 205: return "Reset Content"
        case 206: return "Partial Content"
        case 207: return "Multi-Status"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 402: return "Payment Required"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 425: return "Too Early"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 451: return "Unavailable For Legal Reasons"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 507: return "Insufficient Storage"
        default: return ""
        }
    }
}

extension UploadFailure {
    /// A resumable upload's file, changed since the upload began on the
    /// server: never appended to or completed. `nil` when it is the same
    /// (or either snapshot is unknown).
    static func fileChanged(
        since saved: FileSnapshot?, now current: FileSnapshot?, field: String, path: String, so consequence: String
    ) -> UploadFailure? {
        guard let saved, let current, let detail = saved.change(to: current) else { return nil }
        return .input(
            .fileChanged(
                field: field, path: path, detail: detail + " " + consequence + "; stage it again to upload it anew"))
    }
}
