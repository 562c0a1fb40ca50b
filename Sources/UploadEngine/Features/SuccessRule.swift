/// Decides whether a response counts as success: a 2xx status, plus an
/// optional JSON expectation such as `RETCODE == "0000"`.
public struct SuccessRule: Sendable, Hashable, Codable {
    public struct Expectation: Sendable, Hashable, Codable {
        /// A dotted key path into the JSON body, e.g. `RETCODE` or `data.status`.
        public var path: String
        /// The expected value as text (`"0000"`, `0`, `true`).
        public var value: String

        public init(path: String, value: String) {
            self.path = path
            self.value = value
        }

        /// `key.path=value`, as `hoist send --expect` and the UI's target editor take it;
        /// nil when there is no `=` or nothing before it.
        public init?(parsing text: String) {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
            self.init(path: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
        }

        /// The `key.path=value` spelling, the inverse of `init(parsing:)`.
        public var text: String { path + "=" + value }
    }

    public var expectations: [Expectation]
    /// A key path whose value is the server's message (e.g. `RETMSG`), shown when the rule fails.
    public var messagePath: String?

    public init(expectations: [Expectation] = [], messagePath: String? = nil) {
        self.expectations = expectations
        self.messagePath = messagePath
    }

    /// `nil` on success, or why the response is a failure.
    public func evaluate(status: Int, json: JSONValue?) -> UploadFailure? {
        let message = messagePath.flatMap { json?[path: $0]?.text }
        guard (200..<300).contains(status) else {
            return .httpStatus(status, message: message)
        }
        for expectation in expectations {
            guard let json else {
                return .expectationFailed(
                    path: expectation.path, expected: expectation.value, actual: nil, message: message,
                    reason: "the response is not JSON")
            }
            let actual = json[path: expectation.path]
            if actual?.text != expectation.value {
                return .expectationFailed(
                    path: expectation.path, expected: expectation.value, actual: actual?.text, message: message,
                    reason: nil)
            }
        }
        return nil
    }
}
