import Foundation

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

    static func json(_ status: Int, _ text: String) -> Answer {
        Answer(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    static func upload(_ upload: ReceivedUpload, status: Int = 200) -> Answer {
        var answer = Answer(status: status, contentType: "application/json", body: Array(encode(upload)))
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
