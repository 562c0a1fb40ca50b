import ArgumentParser
import UploadEngine
import UploadPlan

/// `--image-*`: how `hoist send` prepares the images it sends.
struct ImageOptions: ParsableArguments {
    @Option(
        name: .customLong("image-quality"),
        help: ArgumentHelp("Re-encode JPEG (and WebP) at quality Q, 1 to 100.", valueName: "Q"),
        transform: TargetValue.imageQuality)
    var quality: Int?

    @Option(
        name: .customLong("image-max-dim"),
        help: ArgumentHelp("Downscale so the longer side is at most N pixels (never upscaled).", valueName: "N"),
        transform: TargetValue.imageMaxDimension)
    var maxDimension: Int?

    @Option(
        name: .customLong("image-max-bytes"),
        help: ArgumentHelp(
            "The highest quality that fits under SIZE (e.g. 2M, 500K); smaller pixels when quality 40 does not fit.",
            valueName: "size"),
        transform: TargetValue.imageMaxBytes)
    var maxBytes: Int64?

    @Option(
        name: .customLong("image-format"),
        help: ArgumentHelp(
            "jpeg converts PNG, WebP and HEIC to JPEG; keep (the default) keeps the format.",
            valueName: "jpeg|keep"),
        transform: TargetValue.imageFormat)
    var format: ImageSettings.Format?

    @Flag(
        name: .customLong("image-keep-metadata"),
        help:
            "Keep EXIF, XMP and IPTC (GPS, camera serial...) in prepared images; by default only the colour profile stays."
    )
    var keepsMetadata = false

    /// `nil` when no option asks for a change: images then go as they are.
    var settings: ImageSettings? {
        let settings = ImageSettings(
            quality: quality, maxDimension: maxDimension, maxBytes: maxBytes, format: format ?? .keep,
            keepsMetadata: keepsMetadata)
        return settings.changesImages ? settings : nil
    }
}
