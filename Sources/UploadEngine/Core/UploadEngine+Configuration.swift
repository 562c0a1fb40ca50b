import FoundationEssentials

extension UploadEngine {
    public struct Configuration: Sendable {
        public var concurrency: Int
        /// Turns TLS certificate verification off.
        public var insecure: Bool
        /// Response bytes kept in memory per task; the rest is counted only.
        public var responseBodyCap: Int
        /// Where proxy settings come from (`http_proxy`, `https_proxy`, `no_proxy`).
        public var environment: [String: String]
        /// How file parts reach a plaintext HTTP/1.1 socket.
        public var fileSending: FileSending
        /// Bytes per second over every upload at once (`--limit-rate`); nil for none.
        public var limitRate: Int64?
        /// Whether a finished task stays, to be listed and retried (the UI),
        /// or goes once its monitors have its last event (`hoist send`,
        /// which prints each result and keeps only the counts).
        public var keepsFinishedTasks: Bool
        /// Whether a finished task tells the size and SHA-256 of each file it
        /// sent, when its body was read whole (`TaskSnapshot.sentFiles`): for
        /// a history, which would otherwise read every file a second time.
        public var digestsSentFiles: Bool
        /// Told one line as each exchange starts and one as it ends (`hoist
        /// send -v`): method, URL with credentials masked, status or failure.
        public var trace: (@Sendable (String) -> Void)?
        /// Whether a resumable upload that failed because its server could
        /// not be reached is kept open, for `hoist resume` (a journal
        /// records it), instead of being aborted on the server.
        public var keepsUnreachableUploads: Bool

        public init(
            concurrency: Int = 4,
            insecure: Bool = false,
            responseBodyCap: Int = 8 << 20,
            environment: [String: String] = ProcessInfo.processInfo.environment,
            fileSending: FileSending = .automatic,
            limitRate: Int64? = nil,
            keepsFinishedTasks: Bool = true,
            digestsSentFiles: Bool = false,
            trace: (@Sendable (String) -> Void)? = nil,
            keepsUnreachableUploads: Bool = false
        ) {
            self.keepsUnreachableUploads = keepsUnreachableUploads
            self.trace = trace
            self.keepsFinishedTasks = keepsFinishedTasks
            self.digestsSentFiles = digestsSentFiles
            self.limitRate = limitRate
            self.fileSending = fileSending
            self.concurrency = concurrency
            self.insecure = insecure
            self.responseBodyCap = responseBodyCap
            self.environment = environment
        }
    }
}
