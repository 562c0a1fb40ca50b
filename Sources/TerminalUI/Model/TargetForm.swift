import UploadEngine
import UploadPlan

/// The `t` dialog: the target as form rows, and the rows back as settings,
/// each value checked by the same `TargetValue` validator as a profile's
/// key and a command-line option.
enum TargetForm {
    static func make(_ target: Target) -> EditorForm {
        let methods = UploadRequest.Method.allCases
        let kinds = Target.BodyKind.allCases
        let transfers = Target.TransferKind.allCases
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
                    "Transfer", options: transfers.map(\.rawValue),
                    selected: transfers.firstIndex(of: target.transfer) ?? 0,
                    hint: "tus: resumable, each file goes on from where it stopped"),
                .init(
                    "Chunk", text: TargetValue.text(chunk: target.chunkSize),
                    hint: "bytes per tus PATCH, e.g. 8M, or auto (8M up to 64M, by speed)"),
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
                .init(
                    "Endpoint", text: target.s3.endpoint ?? "",
                    hint: "s3:// URLs: an S3-compatible server (MinIO, R2...); empty: AWS"),
                .init("Region", text: target.s3.region ?? "", hint: "s3:// URLs; empty: as the AWS CLI finds it"),
                .init(
                    "Keys", text: target.s3.awsProfile ?? "",
                    hint: "s3:// URLs: an AWS profile of ~/.aws; empty: the environment"),
            ])
    }

    /// The target the form describes, or the row and why it is refused.
    /// Every row is shown, so each sets its value; only what the dialog
    /// does not show (concurrency) is kept from `current`.
    static func target(from form: EditorForm, over current: Target) -> Result<Target, Refusal> {
        do throws(Refusal) {
            var target = current
            target.url = try form.checked("URL", TargetValue.url)
            target.method = try form.checked("Method", TargetValue.method)
            target.bodyKind = try form.checked("Body", TargetValue.bodyKind)
            target.transfer = try form.checked("Transfer", TargetValue.transfer)
            target.chunkSize = try form.checked("Chunk", TargetValue.chunkSize)
            target.fileField = try form.checked("Field", TargetValue.fieldName)
            target.retries = try form.checked("Retries", TargetValue.retries)
            target.expectations = try form.checked("Expect") { text throws(TargetValueError) in
                var expectations: [SuccessRule.Expectation] = []
                for item in text.split(separator: ",") where !item.trimmingSpaces.isEmpty {
                    expectations.append(try TargetValue.expectation(item.trimmingSpaces))
                }
                return expectations
            }
            target.messagePath = try form.optional("Message") { $0 }
            let defaults = Timeouts()
            target.timeouts = Timeouts(
                connect: try form.optional("Connect", TargetValue.seconds) ?? defaults.connect,
                idle: try form.optional("Idle", TargetValue.seconds) ?? defaults.idle,
                total: try form.optional("Timeout", TargetValue.seconds))
            target.s3.endpoint = try form.optional("Endpoint", TargetValue.url)
            target.s3.region = try form.optional("Region") { $0 }
            target.s3.awsProfile = try form.optional("Keys") { $0 }
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

extension EditorForm {
    /// The row's text, trimmed and checked by its validator (the `t` and `I` dialogs).
    func checked<Value>(_ row: String, _ validate: (String) throws(TargetValueError) -> Value)
        throws(TargetForm.Refusal) -> Value
    {
        do { return try validate(value(row).trimmingSpaces) } catch {
            throw TargetForm.Refusal(row: row, error: error)
        }
    }

    /// `nil` for an empty row.
    func optional<Value>(_ row: String, _ validate: (String) throws(TargetValueError) -> Value)
        throws(TargetForm.Refusal) -> Value?
    {
        value(row).trimmingSpaces.isEmpty ? nil : try checked(row, validate)
    }
}
