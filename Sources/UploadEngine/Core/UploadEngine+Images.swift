import Dispatch
import Foundation
import Glibc

/// Image preparation, on `queue`: a task whose request asks for it
/// (`UploadRequest.images`) prepares its images once, inside its slot,
/// before its first attempt; retries send the same prepared files. While
/// one slot prepares, the others upload. The files live in a private folder
/// and go when the task finishes, whatever its end.
extension UploadEngine {
    /// Starts preparing the task's images and returns true, or returns false
    /// when there is nothing to prepare (or it was done before).
    func prepareImagesIfNeeded(_ id: TaskID, attempt number: Int) -> Bool {
        guard let record = records[id], let settings = record.snapshot.request.images, record.imageRequest == nil,
            record.snapshot.request.transfer == .single
        else { return false }
        let request = record.snapshot.request
        record.prepared = nil  // the body from `add` names the originals
        record.snapshot.note = "preparing images"
        emit(.stateChanged(record.snapshot))
        if madeImageFolder == nil { madeImageFolder = Self.makeImageFolder() }
        let folder = madeImageFolder!
        Self.preparation.async {
            let result = Result { () throws(ImagePrepError) in
                try request.preparingImages(settings, into: try folder.get())
            }
            self.queue.async { self.imagesPrepared(id, attempt: number, result) }
        }
        return true
    }

    private func imagesPrepared(
        _ id: TaskID, attempt number: Int, _ result: Result<(UploadRequest, [PreparedImage]), ImagePrepError>
    ) {
        guard isCurrent(id, attempt: number), let record = records[id] else {
            if case .success(let (_, images)) = result { Self.remove(images) }
            return
        }
        record.snapshot.note = nil
        switch result {
        case .success(let (request, images)):
            record.imageRequest = request
            record.snapshot.preparedImages = images
            record.snapshot.progress.totalBytes = nil
            startTransfer(id, attempt: number)
        case .failure(let error):
            guard transition(id, .attemptFailed(.other(error.description), retryIn: nil, now: .now)) == .finish else {
                return
            }
            finished(id)
            pump()
        }
    }

    /// Removes a finished task's prepared files.
    func removePreparedImages(_ record: TaskRecord) {
        Self.remove(record.snapshot.preparedImages)
        record.imageRequest = nil
    }

    static func remove(_ images: [PreparedImage]) {
        for image in images { unlink(image.path) }
    }

    /// Preparing runs off the engine's queue; libvips uses every core for one image.
    static let preparation = DispatchQueue(label: "hoist.images", qos: .userInitiated, attributes: .concurrent)

    /// A private folder (0700) under `$TMPDIR`, made when first needed.
    static func makeImageFolder() -> Result<String, ImagePrepError> {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/hoist-images-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            return .failure(
                ImagePrepError("cannot create a private folder in \(base): \(String(cString: strerror(errno)))"))
        }
        return .success(String(cString: template))
    }
}
