import UploadEngine
import UploadPlan

/// The `t` dialog: the target as form rows, and the rows back as settings,
/// each value checked by the same `TargetValue` validator as a profile's
/// key and a command-line option.
enum TargetForm {
    static func make(_ target: Target) -> EditorForm {
        let methods = UploadRequest.Method.allCases
        let kinds = Target.BodyKind.allCases
        let defaults = Timeouts()
        return EditorForm(
            purpose: .target, title: "Target",
            rows: [
                .init("URL", text: target.url),
                .init(
                    "Method", options: methods.map(\.rawValue), selected: methods.firstIndex(of: target.method) ?? 0,
                    hint: "←/→"),
                .init(
                    "Body", options: kinds.map(\.rawValue), selected: kinds.firstIndex(of: target.bodyKind) ?? 0,
                    hint: "←/→"),
                .init(
                    "Expect", text: target.expectations.map(\.text).joined(separator: ", "),
                    hint: "key.path=value, e.g. RETCODE=0000"),
                .init("Message", text: target.messagePath ?? "", hint: "key path of the server's message, e.g. RETMSG"),
                .init("Retries", text: String(target.retries)),
                .init("Field", text: target.fileField, hint: "the form field of newly staged files"),
                .init(
                    "Timeout", text: target.timeouts.total.map(TargetValue.text(seconds:)) ?? "",
                    hint: "seconds per attempt; empty: none"),
                .init(
                    "Connect", text: TargetValue.text(seconds: target.timeouts.connect),
                    hint: "seconds to connect; empty: \(TargetValue.text(seconds: defaults.connect))"),
                .init(
                    "Idle", text: TargetValue.text(seconds: target.timeouts.idle),
                    hint: "seconds with no bytes moving; empty: \(TargetValue.text(seconds: defaults.idle))"),
            ])
    }

    /// The target the form describes, or the row and why it is refused.
    static func target(from form: EditorForm, over current: Target) -> Result<Target, Refusal> {
        func check<Value>(_ row: String, _ validate: () throws(TargetValueError) -> Value) throws(Refusal) -> Value {
            do { return try validate() } catch { throw Refusal(row: row, error: error) }
        }
        func optional(_ row: String) -> String? {
            let text = form.value(row).trimmingSpaces
            return text.isEmpty ? nil : text
        }
        do throws(Refusal) {
            let url = form.value("URL").trimmingSpaces
            var settings = TargetSettings(
                url: try check("URL") { () throws(TargetValueError) in try TargetValue.url(url) },
                method: try check("Method") { () throws(TargetValueError) in
                    try TargetValue.method(form.value("Method"))
                },
                bodyKind: try check("Body") { () throws(TargetValueError) in
                    try TargetValue.bodyKind(form.value("Body"))
                },
                fileField: try check("Field") { () throws(TargetValueError) in
                    try TargetValue.fieldName(form.value("Field").trimmingSpaces)
                },
                retries: try check("Retries") { () throws(TargetValueError) in
                    try TargetValue.retries(form.value("Retries"))
                })
            var expectations: [SuccessRule.Expectation] = []
            for item in form.value("Expect").split(separator: ",") where !item.trimmingSpaces.isEmpty {
                expectations.append(
                    try check("Expect") { () throws(TargetValueError) in
                        try TargetValue.expectation(item.trimmingSpaces)
                    })
            }
            settings.expectations = expectations
            let defaults = Timeouts()
            settings.connectTimeout =
                try optional("Connect").map { text throws(Refusal) in
                    try check("Connect") { () throws(TargetValueError) in try TargetValue.seconds(text) }
                } ?? defaults.connect
            settings.idleTimeout =
                try optional("Idle").map { text throws(Refusal) in
                    try check("Idle") { () throws(TargetValueError) in try TargetValue.seconds(text) }
                } ?? defaults.idle
            var target = settings.applied(to: current)
            target.messagePath = optional("Message")
            target.timeouts.total = try optional("Timeout").map { text throws(Refusal) in
                try check("Timeout") { () throws(TargetValueError) in try TargetValue.seconds(text) }
            }
            return .success(target)
        } catch {
            return .failure(error)
        }
    }

    /// A row's value refused by its validator.
    struct Refusal: Error {
        var row: String
        var error: TargetValueError
        var description: String { "\(row): \(error.description)" }
    }
}
