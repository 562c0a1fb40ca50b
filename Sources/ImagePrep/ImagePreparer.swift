import CVips
import Glibc

/// Prepares one image with libvips: decoded at the size it is sent
/// (shrink-on-load), turned upright by its EXIF orientation, metadata
/// stripped but the ICC profile, encoded at the quality or size asked.
/// Thread-safe: libvips is, and each call owns its images.
public enum ImagePreparer {
    /// The MIME types Hoist prepares; other files go as they are.
    public static let imageTypes: Set<String> = [
        "image/jpeg", "image/png", "image/webp", "image/heic", "image/heif", "image/avif",
    ]

    private static let started: Bool = hoist_vips_start() == 0

    /// Prepares `path` (sent as `filename`) into `folder`, a private folder
    /// the caller owns; the new file is created 0600 and never replaces one.
    public static func prepare(
        _ path: String, filename: String, settings: ImageSettings, into folder: String
    ) throws(ImagePrepError) -> PreparedImage {
        guard started else { throw ImagePrepError(lastError()) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ImagePrepError("\(path): \(String(cString: strerror(errno)))")
        }
        // A class name such as VipsForeignLoadJpegFile.
        guard let loaderName = hoist_loader(path).map({ String(cString: $0).lowercased() }) else {
            hoist_error_clear()
            throw ImagePrepError("\(filename) is not an image libvips can read (is it really \(kind(of: filename))?)")
        }
        let original = try open(path, filename: filename)
        defer { hoist_unref(original) }
        let (width, height) = (Int(hoist_width(original)), Int(hoist_height(original)))
        guard Int64(width) * Int64(height) <= settings.maxPixels else {
            throw ImagePrepError(
                "\(filename) is \(width)×\(height) pixels, more than the \(settings.maxPixels / 1_000_000) megapixels"
                    + " Hoist decodes (a decompression bomb?)")
        }
        let shown = uprightSize(original)
        let output = Output(loader: loaderName, format: settings.format)
        let box = settings.maxDimension ?? max(width, height)
        var image = try upright(path, filename: filename, box: box)
        defer { hoist_unref(image) }
        if !settings.keepsMetadata {
            guard let stripped = hoist_strip_metadata(image) else { throw failure(filename, "stripping metadata") }
            hoist_unref(image)
            image = stripped
        }
        if output == .jpeg {
            guard let flat = hoist_flatten(image) else { throw failure(filename, "flattening transparency") }
            hoist_unref(image)
            image = flat
        }
        let quality = settings.quality ?? ImageSettings.defaultQuality
        var bytes = try encode(image, as: output, quality: quality, filename: filename)
        var used = quality
        if let limit = settings.maxBytes, bytes.count > limit {
            (bytes, used, image) = try fit(image, under: limit, as: output, from: quality, filename: filename)
        }
        let name = output.rename(filename, loader: loaderName)
        let target = try write(bytes, named: name, into: folder)
        return PreparedImage(
            source: path, path: target, filename: name, contentType: output.contentType(loader: loaderName),
            width: Int(hoist_width(image)), height: Int(hoist_height(image)),
            bytes: Int64(bytes.count), originalWidth: shown.width, originalHeight: shown.height,
            originalBytes: Int64(info.st_size), quality: output == .png ? nil : used)
    }

    /// The upright size of the image at `path`, from its header alone;
    /// `nil` when libvips cannot read it as an image.
    public static func pixelSize(of path: String) -> PixelSize? {
        guard started, hoist_loader(path) != nil, let image = hoist_open(path) else {
            hoist_error_clear()
            return nil
        }
        defer { hoist_unref(image) }
        return uprightSize(image)
    }

    /// Orientations 5 to 8 turn the image a quarter.
    private static func uprightSize(_ image: OpaquePointer) -> PixelSize {
        let (width, height) = (Int(hoist_width(image)), Int(hoist_height(image)))
        let turned = (5...8).contains(hoist_orientation(image))
        return turned ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }

    // MARK: - Steps

    private static func open(_ path: String, filename: String) throws(ImagePrepError) -> OpaquePointer {
        guard let image = hoist_open(path) else { throw failure(filename, "reading its header") }
        return image
    }

    private static func upright(_ path: String, filename: String, box: Int) throws(ImagePrepError)
        -> OpaquePointer
    {
        guard let image = hoist_thumbnail(path, Int32(box), Int32(box)) else { throw failure(filename, "decoding it") }
        return image
    }

    /// The highest quality from `quality` down to 40 that fits; then smaller
    /// pixels, each round scaled by how far the last one missed.
    private static func fit(
        _ image: OpaquePointer, under limit: Int64, as output: Output, from quality: Int,
        filename: String
    ) throws(ImagePrepError) -> ([UInt8], Int, OpaquePointer) {
        var current = image
        hoist_ref(current)
        defer { hoist_unref(current) }
        // PNG has no quality to lower: only its pixels can go.
        let floor = output == .png ? quality : ImageSettings.lowestQuality
        for _ in 0..<8 {
            let smallest = try encode(current, as: output, quality: floor, filename: filename)
            if smallest.count <= limit {
                var (low, high, best) = (floor, quality, smallest)
                while low < high {
                    let middle = (low + high + 1) / 2
                    let bytes = try encode(current, as: output, quality: middle, filename: filename)
                    if bytes.count <= limit {
                        (low, best) = (middle, bytes)
                    } else {
                        high = middle - 1
                    }
                }
                hoist_ref(current)
                return (best, low, current)
            }
            current = try resized(
                current, (Double(limit) / Double(smallest.count)).squareRoot() * 0.95, filename: filename)
            if hoist_width(current) < 16 || hoist_height(current) < 16 { break }
        }
        throw ImagePrepError(
            "\(filename) cannot be made as small as \(limit) bytes (--image-max-bytes) and stay an image")
    }

    private static func resized(_ image: OpaquePointer, _ scale: Double, filename: String)
        throws(ImagePrepError) -> OpaquePointer
    {
        guard let smaller = hoist_resize(image, scale) else { throw failure(filename, "scaling it down") }
        hoist_unref(image)
        return smaller
    }

    private static func encode(
        _ image: OpaquePointer, as output: Output, quality: Int, filename: String
    ) throws(ImagePrepError) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        switch output {
        case .jpeg: status = hoist_jpeg(image, Int32(quality), &buffer, &length)
        case .png: status = hoist_png(image, &buffer, &length)
        case .webp: status = hoist_webp(image, Int32(quality), &buffer, &length)
        }
        guard status == 0, let buffer else { throw failure(filename, "encoding it") }
        defer { hoist_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    private static func write(_ bytes: [UInt8], named name: String, into folder: String) throws(ImagePrepError)
        -> String
    {
        for _ in 0..<8 {
            let path = folder + "/" + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-" + name
            let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd < 0, errno == EEXIST { continue }
            guard fd >= 0 else { throw ImagePrepError("cannot create \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var done = 0
            while done < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    unlink(path)
                    throw ImagePrepError("cannot write \(path): \(String(cString: strerror(errno)))")
                }
                done += count
            }
            return path
        }
        throw ImagePrepError("cannot create a file in \(folder)")
    }

    // MARK: - Errors

    private static func lastError() -> String {
        guard let text = hoist_vips_error() else { return "unknown error" }
        defer { hoist_free(text) }
        return String(cString: text).split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
            .joined(separator: "; ")
    }

    private static func failure(_ filename: String, _ step: String) -> ImagePrepError {
        ImagePrepError("\(filename) could not be prepared (\(step)): \(lastError())")
    }

    private static func kind(of filename: String) -> String {
        let ext = filename.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return ["jpg": "a JPEG", "jpeg": "a JPEG", "png": "a PNG", "webp": "a WebP", "heic": "a HEIC"][ext]
            ?? "an image"
    }
}

/// The format a prepared image is written in.
enum Output {
    case jpeg, png, webp

    init(loader: String, format: ImageSettings.Format) {
        switch (format, loader) {
        case (.keep, let name) where name.contains("png"): self = .png
        case (.keep, let name) where name.contains("webp"): self = .webp
        default: self = .jpeg
        }
    }

    func contentType(loader: String) -> String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }

    /// The filename with the extension of the new format, when the format changed.
    func rename(_ filename: String, loader: String) -> String {
        let same: Bool
        switch self {
        case .jpeg: same = loader.contains("jpeg")
        case .png: same = loader.contains("png")
        case .webp: same = loader.contains("webp")
        }
        guard !same else { return filename }
        let base = filename.lastIndex(of: ".").map { String(filename[..<$0]) } ?? filename
        return base + (self == .jpeg ? ".jpg" : self == .png ? ".png" : ".webp")
    }
}
