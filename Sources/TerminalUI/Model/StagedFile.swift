import FormData
import UploadEngine
import UploadPlan

/// How one staged image is prepared: as the target's settings say, by its
/// own settings, or sent as it is.
public enum ImageChoice: Sendable, Hashable, Codable {
    case likeTarget
    /// Boxed: inline, the settings made every staged file (and its journal
    /// record) about 50 bytes larger, for the few that have their own.
    indirect case own(ImageSettings)
    case asIs
}

/// A file waiting to be uploaded, as the Files pane lists it.
public struct StagedFile: Sendable, Hashable, Identifiable {
    public var id: Int
    public var path: String
    public var size: Int64
    /// The type detected from the extension (built-in table plus /etc/mime.types).
    public var detectedType: String
    /// The form field the file is sent in.
    public var fieldName: String
    /// Overrides of the filename and Content-Type sent for the part.
    public var filename: String?
    public var contentType: String?
    /// Marked with Space: `u` then uploads only the marked files.
    public var marked = false
    /// An image's upright size, read from its header when staged.
    public var pixels: PixelSize?
    /// How the file is prepared when it is an image (`I` on it).
    public var images: ImageChoice = .likeTarget

    public init(
        id: Int = 0, path: String, size: Int64, detectedType: String? = nil, fieldName: String = "file",
        pixels: PixelSize? = nil
    ) {
        self.id = id
        self.pixels = pixels
        self.path = path
        self.size = size
        self.fieldName = fieldName
        self.detectedType = detectedType ?? MIMETypes.type(forFilename: path)
    }

    public var baseName: String { FormData.baseName(of: path) }

    public var displayName: String { filename ?? baseName }
    /// The type sent, found the way FormData finds it: the type set here,
    /// else the sent filename's extension, else the path's.
    public var effectiveType: String {
        contentType ?? filename.flatMap { MIMETypes.lookup(filename: $0) } ?? detectedType
    }

    /// The file as the target's requests take it: the type is sent as
    /// detected unless it was changed here.
    var choice: FileChoice {
        FileChoice(path: path, field: fieldName, filename: filename, contentType: contentType)
    }
}
