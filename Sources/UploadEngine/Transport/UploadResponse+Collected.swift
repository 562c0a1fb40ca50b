import FormData

extension UploadResponse {
    init(collected: ResponseCollector.CollectedResponse, elapsed: Duration) {
        self.init(
            status: collected.status,
            headers: collected.headers,
            elapsed: elapsed,
            body: collected.body,
            bodyBytesReceived: collected.bodyBytesReceived,
            content: ResponseContentDecoder.decode(
                collected.body,
                contentType: collected.headers.first { $0.name.lowercased() == "content-type" }?.value,
                truncated: collected.bodyBytesReceived > Int64(collected.body.count)),
            version: collected.version
        )
    }
}
