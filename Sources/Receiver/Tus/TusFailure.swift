/// A tus request refused with a status, a message for the JSON body, and the headers that let the
/// client recover (the current `Upload-Offset` with a 409, `Tus-Version` with a 412).
struct TusFailure: Error, Equatable {
    var status: Int
    var message: String
    var headers: [(name: String, value: String)] = []

    static func == (lhs: TusFailure, rhs: TusFailure) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message
            && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
    }

    static func badRequest(_ message: String) -> TusFailure {
        TusFailure(status: 400, message: message)
    }

    static func notFound(_ id: String) -> TusFailure {
        TusFailure(status: 404, message: "no upload \(id): it never existed, was terminated, or expired")
    }

    static func conflict(_ message: String, offset: Int64) -> TusFailure {
        TusFailure(
            status: 409, message: "\(message); HEAD the upload and resume from Upload-Offset \(offset)",
            headers: [("Upload-Offset", String(offset))])
    }

    static func tooLarge(_ message: String) -> TusFailure {
        TusFailure(status: 413, message: message)
    }

    static let versionMissing = TusFailure(
        status: 412, message: "send Tus-Resumable: \(TusProtocol.version); it is the only version this receiver speaks",
        headers: [("Tus-Version", TusProtocol.version)])
}
