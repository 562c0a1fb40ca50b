import FormData
import Glibc
import ImagePrep

extension UploadRequest {
    /// How the image at `path` is prepared; `nil` when it goes as it is.
    public func imageSettings(forFile path: String) -> ImageSettings? {
        imagesByFile[path] ?? images
    }

    /// `true` when some image this request sends may be prepared.
    public var preparesImages: Bool {
        images != nil || imagesByFile.values.contains { $0 != nil }
    }

    /// The request with each image it sends (a multipart file part, a raw
    /// file body, a file inside base64 JSON) replaced by its prepared copy
    /// in `folder`: new path, filename and Content-Type, also in a tus
    /// upload's metadata and an S3 key named after the file. Other files go
    /// as they are. On an error, what was prepared so far is removed.
    func preparingImages(into folder: String) throws(ImagePrepError) -> (UploadRequest, [PreparedImage]) {
        var request = self
        var images: [PreparedImage] = []
        func prepare(_ path: String, filename: String, type: String?) throws(ImagePrepError) -> PreparedImage? {
            let type = type ?? MIMETypes.type(forFilename: filename)
            guard let settings = imageSettings(forFile: path), ImagePreparer.imageTypes.contains(type.lowercased())
            else { return nil }
            let image = try ImagePreparer.prepare(path, filename: filename, settings: settings, into: folder)
            images.append(image)
            return image
        }
        do {
            switch body {
            case .multipart(var form):
                for index in form.parts.indices {
                    let part = form.parts[index]
                    guard case .file(let path) = part.content, let filename = part.filename,
                        let image = try prepare(path, filename: filename, type: part.contentType)
                    else { continue }
                    form.parts[index].content = .file(path: image.path)
                    form.parts[index].filename = image.filename
                    form.parts[index].contentType = image.contentType
                }
                request.body = .multipart(form)
            case .rawFile(let path, let type):
                if let image = try prepare(
                    path, filename: transfer.settings?.filename ?? baseName(of: path), type: type)
                {
                    request.body = .rawFile(path: image.path, contentType: image.contentType)
                    request.carry(image)
                }
            case .base64JSON(var body):
                if let image = try prepare(body.path, filename: baseName(of: body.path), type: nil) {
                    body.path = image.path
                    if body.typeValue == nil {
                        body.typeValue = image.filename.split(separator: ".").last.map(String.init)
                    }
                    request.body = .base64JSON(body)
                }
            default:
                break
            }
        } catch {
            for image in images { unlink(image.path) }
            throw error
        }
        return (request, images)
    }

    /// A resumable transfer names the file (tus in its metadata, S3 in the
    /// object's key): it takes the prepared name and type.
    private mutating func carry(_ image: PreparedImage) {
        guard var settings = transfer.settings else { return }
        settings.carry(image, url: &url)
        transfer = Transfer(settings)
    }
}
