import UploadEngine
import UploadPlan

/// The `t` dialog: the target as form rows, and the rows back as settings,
/// each value checked by the same `TargetValue` validator as a profile's
/// key and a command-line option.
enum TargetForm {
    /// The URL, then a row per option of `TargetOption.dialogRows`.
    static func make(_ target: Target) -> EditorForm {
        EditorForm(
            purpose: .target, title: "Target",
            rows: [.init("URL", text: target.url)]
                + TargetOption.dialogRows.map { option in
                    let row = option.row!
                    let text = option.text(in: target)
                    guard let choices = row.choices else { return .init(row.label, text: text, hint: row.hint ?? "") }
                    return .init(
                        row.label, options: choices, selected: choices.firstIndex(of: text) ?? 0, hint: row.hint ?? "")
                })
    }

    /// The target the form describes, or the row and why it is refused.
    /// Every row is shown, so each sets its value (an empty one the
    /// default); what the dialog does not show (concurrency) is kept from
    /// `current`.
    static func target(from form: EditorForm, over current: Target) -> Result<Target, Refusal> {
        do throws(Refusal) {
            var target = current
            target.url = try form.checked("URL", TargetValue.url)
            for option in TargetOption.dialogRows {
                let label = option.row!.label
                let text = form.value(label).trimmingSpaces
                if text.isEmpty {
                    target = option.resetting(target)
                } else {
                    try form.checked(label) { text throws(TargetValueError) in try option.setting(text) }.apply(
                        to: &target)
                }
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
