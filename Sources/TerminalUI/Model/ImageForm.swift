import UploadEngine
import UploadPlan

/// The `I` dialog: how images are prepared before they go (quality, size,
/// format, metadata), for the marked files, the file under the cursor or
/// every image the target sends; each value checked by the `TargetValue`
/// validator `hoist send --image-*` and a profile use.
enum ImageForm {
    static let formats = ImageSettings.Format.allCases.map(\.rawValue)
    static let metadata = ["strip", "keep"]
    static let everyImage = "every image"

    /// `files` names the staged files the dialog is for (by id), `scope`
    /// says them ("3 marked files", a file's name); with none, it sets every image's.
    static func make(_ settings: ImageSettings?, files: [Int] = [], scope: String = "") -> EditorForm {
        let settings = settings ?? ImageSettings()
        var rows: [EditorForm.Row] = []
        if !files.isEmpty {
            rows.append(
                .init(
                    "For", options: [scope, everyImage], selected: 0,
                    hint: "←→ these files alone, or every image the target sends"))
        }
        rows += [
            .init("Quality", text: settings.quality.map(String.init) ?? "", hint: "JPEG quality 1-100; empty: 85"),
            .init(
                "Max dim", text: settings.maxDimension.map(String.init) ?? "",
                hint: "longer side in pixels, e.g. 2048; empty: as taken"),
            .init(
                "Max bytes", text: settings.maxBytes.map(TargetValue.text(size:)) ?? "",
                hint: "e.g. 2M or 500K: the best quality that fits"),
            .init(
                "Format", options: formats, selected: formats.firstIndex(of: settings.format.rawValue) ?? 0,
                hint: "jpeg converts PNG, WebP, HEIC"),
            .init(
                "Metadata", options: metadata, selected: settings.keepsMetadata ? 1 : 0,
                hint: "strip GPS, camera serial...; the colour profile stays"),
        ]
        return EditorForm(purpose: .images(files: files), title: "Prepare images", rows: rows)
    }

    /// True when the form sets the target's settings rather than some files'.
    static func isForEveryImage(_ form: EditorForm) -> Bool {
        guard case .images(let files) = form.purpose, !files.isEmpty else { return true }
        return form.value("For") == everyImage
    }

    /// The settings the form describes: `nil` when it asks for no change.
    static func settings(from form: EditorForm) -> Result<ImageSettings?, TargetForm.Refusal> {
        do throws(TargetForm.Refusal) {
            let settings = ImageSettings(
                quality: try form.optional("Quality", TargetValue.imageQuality),
                maxDimension: try form.optional("Max dim", TargetValue.imageMaxDimension),
                maxBytes: try form.optional("Max bytes", TargetValue.imageMaxBytes),
                format: try form.optional("Format", TargetValue.imageFormat) ?? .keep,
                keepsMetadata: form.value("Metadata") == "keep")
            return .success(settings.changesImages ? settings : nil)
        } catch {
            return .failure(error)
        }
    }
}
