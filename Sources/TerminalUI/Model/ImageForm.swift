import UploadEngine
import UploadPlan

/// The `I` dialog: how images are prepared before they go (quality, size,
/// format, metadata), for every image the target sends; each value checked
/// by the `TargetValue` validator `hoist send --image-*` and a profile use.
enum ImageForm {
    static let formats = ImageSettings.Format.allCases.map(\.rawValue)
    static let metadata = ["strip", "keep"]

    static func make(_ settings: ImageSettings?) -> EditorForm {
        let settings = settings ?? ImageSettings()
        return EditorForm(
            purpose: .images, title: "Prepare images",
            rows: [
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
            ])
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
