import Dispatch
import FoundationEssentials
import Glibc

/// Image preparation, on `queue`: a task whose request asks for it
/// (`UploadRequest.images`) has its images prepared once before its first
/// attempt; retries send the same prepared files. The next queued tasks are
/// prepared ahead while the running ones upload, at most as many as there
/// are slots, so preparing (CPU) overlaps uploading (network) and memory
/// stays bounded. The files live in a private folder and go when the task
/// finishes, whatever its end.
extension UploadEngine {
    /// True when the attempt must wait for the task's images (it goes on
    /// when they are ready); false when there is nothing to prepare.
    func awaitImages(_ id: TaskID, attempt number: Int) -> Bool {
        guard let record = records[id], needsImages(record) else { return false }
        if let failure = record.imageFailure {
            fail(id, failure)
            return true
        }
        record.attemptAwaitingImages = number
        record.snapshot.note = "preparing images"
        emit(.stateChanged(record.snapshot))
        if !preparingImages.contains(id) { beginPreparing(id) }
        return true
    }

    /// Prepares the images of the next queued tasks, so they are ready when a slot frees.
    func prepareAhead() {
        let inFlight = preparingImages.count
        guard inFlight < concurrency else { return }
        var room = concurrency - inFlight
        for id in index.nextQueued(concurrency) where room > 0 {
            guard let record = records[id], needsImages(record), record.imageFailure == nil,
                !preparingImages.contains(id)
            else { continue }
            beginPreparing(id)
            room -= 1
        }
    }

    private func needsImages(_ record: TaskRecord) -> Bool {
        record.snapshot.request.preparesImages && record.imageRequest == nil
    }

    private func beginPreparing(_ id: TaskID) {
        guard let record = records[id] else { return }
        preparingImages.insert(id)
        record.prepared = nil  // the body from `add` names the originals
        if madeImageFolder == nil { madeImageFolder = Self.makeImageFolder() }
        let (request, folder) = (record.snapshot.request, madeImageFolder!)
        Self.preparation.async {
            let result = Result { () throws(ImagePrepError) in
                try request.preparingImages(into: try folder.get())
            }
            self.queue.async { self.imagesPrepared(id, result) }
        }
    }

    private func imagesPrepared(_ id: TaskID, _ result: Result<(UploadRequest, [PreparedImage]), ImagePrepError>) {
        preparingImages.remove(id)
        guard let record = records[id], !record.snapshot.state.isFinished else {
            if case .success(let (_, images)) = result { Self.remove(images) }
            return
        }
        switch result {
        case .success(let (request, images)):
            record.imageRequest = request
            record.snapshot.preparedImages = images
            forgetEarlierPreparation(record)
        case .failure(let error):
            record.imageFailure = error
        }
        defer { prepareAhead() }
        guard let number = record.attemptAwaitingImages else { return }
        record.attemptAwaitingImages = nil
        guard isCurrent(id, attempt: number) else { return }
        record.snapshot.note = nil
        if let failure = record.imageFailure { return fail(id, failure) }
        record.snapshot.progress.totalBytes = nil
        startTransfer(id, attempt: number)
    }

    /// A resumable upload restored from the journal carries the bytes of
    /// copies an earlier run prepared and has since removed. The new copies
    /// are other files (`FileSnapshot`), so that upload is not appended to:
    /// this one starts anew (an S3 multipart upload left is aborted first).
    private func forgetEarlierPreparation(_ record: TaskRecord) {
        guard let checkpoint = record.snapshot.checkpoint, record.driver?.holdsUpload != true,
            !record.snapshot.preparedImages.isEmpty
        else { return }
        driver(of: record)?.abandon(checkpoint)
        record.snapshot.checkpoint = nil
        record.snapshot.progress.bytesSent = 0
        record.snapshot.resumedFrom = nil
        emit(.checkpoint(record.snapshot))  // the journal forgets it
    }

    /// An image that cannot be prepared fails its task at once: retrying would not help.
    private func fail(_ id: TaskID, _ error: ImagePrepError) {
        records[id]?.snapshot.note = nil
        guard transition(id, .attemptFailed(.other(error.description), retryIn: nil, now: .now)) == .finish else {
            return
        }
        finished(id)
        pump()
    }

    /// Removes a finished task's prepared files; a retry (`r`) prepares
    /// them again, from the files as they are then.
    func removePreparedImages(_ record: TaskRecord) {
        Self.remove(record.snapshot.preparedImages)
        record.imageRequest = nil
        record.imageFailure = nil
    }

    static func remove(_ images: [PreparedImage]) {
        for image in images { unlink(image.path) }
    }

    /// Preparing runs off the engine's queue; libvips uses every core for one image.
    static let preparation = DispatchQueue(label: "hoist.images", qos: .userInitiated, attributes: .concurrent)

    /// A private folder (0700) under `$TMPDIR`, made when first needed,
    /// named after this process. The folders of Hoists that died (a crash,
    /// SIGKILL) are removed first: their tasks prepare their images again.
    static func makeImageFolder() -> Result<String, ImagePrepError> {
        let base = temporaryBase
        removeFoldersOfDeadProcesses(in: base)
        var template = Array((base + "/hoist-images-\(getpid())-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            return .failure(
                ImagePrepError("cannot create a private folder in \(base): \(String(cString: strerror(errno)))"))
        }
        return .success(String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    static var temporaryBase: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// Removes the prepared copies of Hoists that died: called by the one
    /// that adopts their journals, whose tasks prepare their images again.
    public static func removeImagesOfDeadProcesses() {
        removeFoldersOfDeadProcesses(in: temporaryBase)
    }

    /// `hoist-images-PID-XXXXXX` folders of this user whose process is gone.
    static func removeFoldersOfDeadProcesses(in base: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for name in names where name.hasPrefix("hoist-images-") {
            let fields = name.split(separator: "-")
            guard fields.count == 4, let pid = pid_t(fields[2]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let folder = base + "/" + name
            var info = stat()
            guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
                continue
            }
            for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                unlink(folder + "/" + file)
            }
            rmdir(folder)
        }
    }
}
