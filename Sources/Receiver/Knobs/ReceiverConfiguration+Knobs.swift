// What the server-wide knobs (`failFirst`, `resetFirst`) do to the request that arrived `index`-th.
extension ReceiverConfiguration {
    /// `failFirst`: whether this request gets a 503 instead of its answer.
    func refuses(request index: Int) -> Bool {
        index < failFirst
    }

    /// The 503 a refused request gets, after its body was read and discarded.
    var refusal: Answer {
        var answer = Answer.error(
            503,
            "the receiver refuses the first \(failFirst) request(s) (failFirst);"
                + " retry after \(retryAfterSeconds) s")
        answer.retryAfter = retryAfterSeconds
        return answer
    }

    /// `resetFirst`: after how many body bytes this request's connection is reset; `nil` when it is not.
    func resetAfterBodyBytes(forRequest index: Int) -> Int64? {
        index < resetFirst ? max(0, resetAfterBodyBytes) : nil
    }
}
