/// How images are prepared before they go: re-encoded, downscaled, turned
/// upright, stripped of metadata, fitted under a size. `hoist send`'s
/// `--image-*` options, a profile's `image_*` keys.
public struct ImageSettings: Sendable, Hashable, Codable {
    public enum Format: String, Sendable, Hashable, Codable, CaseIterable {
        /// The image's own format (JPEG, PNG, WebP); HEIC and AVIF become JPEG (few servers take them).
        case keep
        /// JPEG, whatever the image was.
        case jpeg
    }

    /// JPEG (and WebP) quality, 1–100; 85 when only other settings are given.
    public var quality: Int?
    /// The longer side at most this many pixels; never enlarged.
    public var maxDimension: Int?
    /// The prepared file at most this many bytes: the highest quality that
    /// fits, then smaller pixels if even quality 40 does not.
    public var maxBytes: Int64?
    public var format: Format
    /// Keep EXIF, XMP and IPTC (GPS, maker notes...). By default only the ICC profile stays.
    public var keepsMetadata: Bool
    /// Larger images are refused before decoding (a decompression bomb).
    public var maxPixels: Int64

    public static let defaultQuality = 85
    /// The lowest quality `maxBytes` tries before making the image smaller.
    public static let lowestQuality = 40
    /// 250 megapixels: above any phone or camera, far below what fills memory.
    public static let defaultMaxPixels: Int64 = 250_000_000

    public init(
        quality: Int? = nil, maxDimension: Int? = nil, maxBytes: Int64? = nil, format: Format = .keep,
        keepsMetadata: Bool = false, maxPixels: Int64 = ImageSettings.defaultMaxPixels
    ) {
        self.quality = quality
        self.maxDimension = maxDimension
        self.maxBytes = maxBytes
        self.format = format
        self.keepsMetadata = keepsMetadata
        self.maxPixels = maxPixels
    }

    /// `true` when any setting asks for a change (metadata alone does not).
    public var changesImages: Bool {
        quality != nil || maxDimension != nil || maxBytes != nil || format == .jpeg
    }

    /// The size an upright image of `size` is prepared to (before any
    /// `maxBytes` shrinking): inside the max dimension, never enlarged.
    public func fitted(_ size: PixelSize) -> PixelSize {
        guard let maxDimension, max(size.width, size.height) > maxDimension else { return size }
        let scale = Double(maxDimension) / Double(max(size.width, size.height))
        return PixelSize(
            width: max(1, Int((Double(size.width) * scale).rounded())),
            height: max(1, Int((Double(size.height) * scale).rounded())))
    }
}

/// An image's width and height in pixels, upright (EXIF orientation applied).
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `4032×3024`
    public var description: String { "\(width)×\(height)" }
}

/// What a prepared image became, for the Files pane, `-v` and the request.
public struct PreparedImage: Sendable, Hashable, Codable {
    /// The original file.
    public var source: String
    /// The prepared file, in a private folder, removed when its task ends.
    public var path: String
    /// The original's name, its extension changed when the format changed.
    public var filename: String
    public var contentType: String
    public var width: Int
    public var height: Int
    public var bytes: Int64
    public var originalWidth: Int
    public var originalHeight: Int
    public var originalBytes: Int64
    /// The JPEG or WebP quality used; `nil` for PNG.
    public var quality: Int?

    public init(
        source: String, path: String, filename: String, contentType: String, width: Int, height: Int, bytes: Int64,
        originalWidth: Int, originalHeight: Int, originalBytes: Int64, quality: Int?
    ) {
        self.source = source
        self.path = path
        self.filename = filename
        self.contentType = contentType
        self.width = width
        self.height = height
        self.bytes = bytes
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.originalBytes = originalBytes
        self.quality = quality
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var originalSize: PixelSize { PixelSize(width: originalWidth, height: originalHeight) }
}

/// Why an image could not be prepared; nothing is sent.
public struct ImagePrepError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
