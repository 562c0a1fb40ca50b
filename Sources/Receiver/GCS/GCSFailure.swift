import FoundationEssentials

/// A refused Cloud Storage request: its status, a message, and the `reason` Google's error body carries.
struct GCSFailure: Error, Equatable {
    var status: Int
    var message: String
    var reason: String

    static func invalid(_ message: String) -> GCSFailure {
        GCSFailure(status: 400, message: message, reason: "invalid")
    }

    static func notFound(_ message: String) -> GCSFailure {
        GCSFailure(status: 404, message: message, reason: "notFound")
    }

    static func noSession(_ id: String) -> GCSFailure {
        .notFound("No such upload session \(id): it never existed, was cancelled, or the receiver restarted")
    }

    /// Google's JSON error body: `{"error":{"code":400,"message":"...","errors":[{...}]}}`.
    var answer: Answer {
        struct Body: Encodable {
            struct Detail: Encodable {
                var message: String
                var domain = "global"
                var reason: String
            }
            struct Inner: Encodable {
                var code: Int
                var message: String
                var errors: [Detail]
            }
            var error: Inner
        }
        let body = Body(
            error: .init(code: status, message: message, errors: [.init(message: message, reason: reason)]))
        return Answer.gcsJSON(status, body)
    }
}

extension Answer {
    /// A JSON answer as Cloud Storage writes it (`application/json; charset=UTF-8`).
    static func gcsJSON(_ status: Int, _ value: some Encodable) -> Answer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // These plain value types always encode.
        let body = (try? encoder.encode(value)).map(Array.init) ?? Array("{}".utf8)
        return Answer(status: status, contentType: "application/json; charset=UTF-8", body: body)
    }

    /// A Cloud Storage answer without a body.
    static func gcsEmpty(_ status: Int, _ headers: [(String, String)] = []) -> Answer {
        var answer = Answer(status: status, contentType: "", body: [])
        answer.headers = headers.map { (name: $0.0, value: $0.1) }
        return answer
    }
}
