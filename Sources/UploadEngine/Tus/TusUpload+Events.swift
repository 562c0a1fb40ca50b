import FormData

/// What goes into a tus upload's machine and what comes out of it.
extension TusUploadStateMachine {
    struct Step: Sendable, Hashable {
        /// A new durable state, for the journal.
        var checkpoint: TusCheckpoint?
        /// What the user should know, e.g. that the server lost the upload.
        var note: String?
        var next: Next
    }

    enum Next: Sendable, Hashable {
        case send(TusExchange)
        /// Every byte is on the server; the last answer is the task's.
        case done
        /// The attempt failed; the task's retry policy decides what follows.
        case fail(UploadFailure)
    }

    enum Event: Sendable {
        /// An attempt begins; `file` is the file as stat sees it now (`nil`
        /// for standard input).
        case start(file: FileSnapshot?)
        /// `seconds`: how long the exchange took, which sizes automatic chunks.
        case answered(status: Int, headers: [HeaderField], seconds: Double? = nil)
        /// The exchange got no answer (reset, timeout, refused).
        case failed(UploadFailure)
    }
}
