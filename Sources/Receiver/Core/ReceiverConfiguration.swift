/// Settings of a ``Receiver``. Every knob is off by default; see ``Receiver`` for what each one does.
public struct ReceiverConfiguration: Sendable {
    /// Address to bind.
    public var host: String = "127.0.0.1"
    /// Port to bind; 0 picks a free ephemeral port (read it from ``Receiver/port`` after `start()`).
    public var port: Int = 0
    /// Saved files go here; created (with parents) when missing.
    public var directory: String
    /// The first N requests get 503 with `Retry-After`, after their body was read and discarded.
    public var failFirst: Int = 0
    /// Value of the `Retry-After` header sent with those 503 answers.
    public var retryAfterSeconds: Int = 1
    /// Added before every answer.
    public var latency: Duration = .zero
    /// Larger bodies get 413. A `Content-Length` above it is refused before a byte of the body is read.
    public var maxBodySize: Int64? = nil
    /// A multipart body with more parts gets 413: each file part is a file on disk.
    public var maxParts = 1_000
    /// Multipart text fields are held in memory: together at most this many bytes (413 beyond).
    public var maxTotalFieldBytes = 16 << 20
    /// A connection's first request head must be in this soon, else 408 and the connection closes (slowloris).
    public var headTimeout: Duration = .seconds(20)
    /// A body with no bytes for this long gets 408; a kept-alive connection this long without a request is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// The first N requests have their TCP connection reset (no HTTP answer) ...
    public var resetFirst: Int = 0
    /// ... once this many body bytes were received (or at the end of a smaller body). 0 resets right after the headers.
    public var resetAfterBodyBytes: Int64 = 0
    /// Read request bodies at most this fast, in bytes per second; `nil` reads at full speed.
    public var readBytesPerSecond: Int? = nil
    /// Serve HTTPS with this certificate chain and key (PEM files), offering
    /// HTTP/2 and HTTP/1.1 through ALPN; `nil` serves plain HTTP/1.1.
    public var tls: (certificatePath: String, keyPath: String)? = nil
    /// Serve tus 1.0 resumable uploads here: `POST /files` creates one at `/files/ID`. Other paths are
    /// unaffected; nil turns the endpoint off. ``maxBodySize`` bounds whole tus uploads (`Tus-Max-Size`).
    public var tusPath: String? = "/files"
    /// Serve Google Cloud Storage's resumable uploads (JSON API) under `/upload/storage/v1/b/` and the
    /// saved objects under `/storage/v1/b/` (see `GCS/`). ``maxBodySize`` bounds whole objects.
    public var servesGCS = true
    /// Failure knobs of the tus endpoint (all off by default).
    public var tusKnobs = TusKnobs()
    /// Require `Authorization: Bearer TOKEN` on every request (401 without it).
    public var token: String? = nil
    /// Origins (`https://app.example.com`) whose pages may send requests, or `*` for any. A request
    /// with another `Origin` than the receiver's own loopback one gets 403: otherwise any web page in
    /// the user's browser could post a form to it and write files.
    public var allowedOrigins: [String] = []
    /// Honour the per-request query knobs (`?status=`, `?delay=`, `?stall=`, `?json=`, ...): for
    /// tests and the demo. Off, any client could make the server answer what it likes, or wait.
    public var allowsTestKnobs = false
    /// An unfinished tus upload is forgotten this long after its last PATCH (the expiration extension,
    /// `Upload-Expires`); nil keeps it until it is finished or deleted.
    public var tusExpiration: Duration? = nil

    public init(directory: String) {
        self.directory = directory
    }
}
