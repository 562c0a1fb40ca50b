// What the per-request query knobs do to the answer and to its timing.
extension RequestKnobs {
    /// `?early=1`: the answer to give before reading a byte of the body.
    var earlyAnswer: Answer? {
        early ? .json(200, #"{"early":true}"#) : nil
    }

    /// True when `?reply=` or `?json=` replaces the answer, `GET /`'s status included.
    var replacesAnswer: Bool {
        reply != nil || json != nil
    }

    /// `?stall=MS`: waits after the headers, before the body is read.
    func stallBeforeBody() async {
        if let stall { try? await Task.sleep(for: stall) }
    }

    /// The answer to a request whose body was received as `upload`: after `?delay=`, the usual JSON with
    /// `?status=` applied, or what `?reply=` or `?json=` says instead.
    func answer(for upload: ReceivedUpload) async -> Answer {
        if let delay { try? await Task.sleep(for: delay) }
        let status = self.status ?? 200
        var answer: Answer
        if let reply {
            switch reply {
            case .invalidJSON: answer = .json(status, #"{"broken": "#)
            case .text:
                answer = Answer(
                    status: status, contentType: "text/plain; charset=utf-8",
                    body: Array("hello from hoist receiver".utf8))
            case .verify:
                answer = .verification(of: upload, status: status)
            }
        } else if let json {
            answer = .json(status, json)
        } else {
            return .upload(upload, status: status)
        }
        answer.files = upload.files.count
        answer.fields = upload.fields.count
        return answer
    }
}
