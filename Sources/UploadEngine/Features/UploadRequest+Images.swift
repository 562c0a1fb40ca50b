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
                if let image = try prepare(path, filename: transfer.filename ?? baseName(of: path), type: type) {
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

    /// A resumable transfer names the file: tus in its metadata, S3 in a
    /// key made of a prefix and the file's name. Both take the prepared name and type.
    private mutating func carry(_ image: PreparedImage) {
        switch transfer {
        case .single:
            break
        case .tus(var settings):
            for index in settings.metadata.indices {
                switch settings.metadata[index].name {
                case "filename": settings.metadata[index].value = image.filename
                case "filetype": settings.metadata[index].value = image.contentType
                default: break
                }
            }
            transfer = .tus(settings)
        case .s3(var settings):
            guard settings.keyIsFileName == true else { return }
            let key = settings.location.key
            let prefix = key[..<(key.lastIndex(of: "/").map { key.index(after: $0) } ?? key.startIndex)]
            settings.location.key = prefix + image.filename
            guard let line = try? settings.endpoint.line("PUT", settings.location) else { return }
            url = line.url
            transfer = .s3(settings)
        }
    }
}

extension Transfer {
    /// The file's name as the server is told it, where the transfer says it.
    fileprivate var filename: String? {
        switch self {
        case .tus(let settings): return settings.metadata.first { $0.name == "filename" }?.value
        case .single, .s3: return nil
        }
    }
}
