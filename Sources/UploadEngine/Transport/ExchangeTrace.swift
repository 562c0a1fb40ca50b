/// `hoist send -v`'s line per exchange (`UploadEngine.Configuration.trace`):
/// one as it starts (`> PUT URL (N bytes)`) and one as it ends (`< 200 PUT
/// URL`, or `! PUT URL: why`), the URL's credentials masked.
struct ExchangeTrace: Sendable {
    let write: @Sendable (String) -> Void

    /// `callbacks`, telling `write` that the exchange starts and how it ended.
    func traced(
        method: String, url: String, length: Int64??, _ callbacks: HTTPTransport.Callbacks
    ) -> HTTPTransport.Callbacks {
        let line = method + " " + Secrets.displayURL(url)
        let size =
            switch length {
            case nil: ""
            case .some(nil): " (chunked)"
            case .some(let bytes?): " (\(bytes) bytes)"
            }
        write("> " + line + size)
        var traced = callbacks
        let write = self.write
        traced.completed = { outcome in
            switch outcome.result {
            case .success(let response): write("< \(response.status) " + line)
            case .failure(let failure): write("! " + line + ": \(failure)")
            }
            callbacks.completed(outcome)
        }
        return traced
    }
}
