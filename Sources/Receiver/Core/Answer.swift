import FoundationEssentials

/// An HTTP answer the receiver is about to write, plus what the log line needs.
struct Answer {
    var status: Int
    var contentType: String
    var body: [UInt8]
    var retryAfter: Int? = nil
    /// More headers, e.g. the tus protocol's.
    var headers: [(name: String, value: String)] = []
    var files = 0
    var fields = 0
    /// The reason phrase of a status NIO knows none for (Google's `499 Client Closed Request`).
    var reason: String? = nil
    /// Sent as the body instead of `body` (a saved object read back).
    var file: StreamedFile? = nil

    static func json(_ status: Int, _ text: String) -> Answer {
        Answer(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    static func upload(_ upload: ReceivedUpload, status: Int = 200) -> Answer {
        var answer = Answer(status: status, contentType: "application/json", body: Array(encode(upload)))
        answer.files = upload.files.count
        answer.fields = upload.fields.count
        return answer
    }

    /// What an ID-card verification API answers (`?reply=verify`, the
    /// demo's route): `RETCODE` "0000" and `RETMSG` "成功", or "1001" and
    /// "照片模糊，请重新拍摄" (blurry, take it again) for a photo whose name
    /// says `blurry`; with the file names and sizes it received.
    static func verification(of upload: ReceivedUpload, status: Int = 200) -> Answer {
        struct Verdict: Encodable {
            struct File: Encodable {
                var name: String
                var size: Int64
            }
            var code: String
            var message: String
            var files: [File]

            enum CodingKeys: String, CodingKey {
                case code = "RETCODE"
                case message = "RETMSG"
                case files
            }
        }
        let blurry = upload.files.first { ($0.filename ?? "").lowercased().contains("blurry") }
        let verdict = Verdict(
            code: blurry == nil ? "0000" : "1001",
            message: blurry.map { "照片模糊，请重新拍摄: \($0.filename ?? "")" } ?? "成功",
            files: upload.files.map { Verdict.File(name: $0.filename ?? $0.name, size: $0.size) })
        var answer = Answer(status: status, contentType: "application/json", body: Array(encode(verdict)))
        answer.files = upload.files.count
        answer.fields = upload.fields.count
        return answer
    }

    /// `{"error": "..."}`
    static func error(_ status: Int, _ message: String) -> Answer {
        Answer(status: status, contentType: "application/json", body: Array(encode(["error": message])))
    }

    private static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain value types cannot fail.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }
}
