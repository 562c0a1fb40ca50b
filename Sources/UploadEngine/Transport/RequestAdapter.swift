import Dispatch
import FormData
import NIOConcurrencyHelpers

/// Writes a driver's request headers at the moment the request goes: S3's
/// SigV4 signature, dated by the server's clock as far as it is known. An
/// answer may ask for the request once more, adapted anew (a skewed clock).
protocol RequestAdapter: Sendable {
    func adapt(_ headers: [HeaderField]) -> AdaptedHeaders
}

struct AdaptedHeaders: Sendable {
    var headers: [HeaderField]
    /// Whether `outcome` asks for the request once more; what it teaches
    /// (the server's clock) is learnt here, so the next adapt uses it.
    var sendAgain: @Sendable (HTTPTransport.Outcome) -> Bool = { _ in false }
}

extension UploadEngine {
    /// One exchange, its headers adapted as it goes; sent once more,
    /// adapted anew, when its answer asks (one more only).
    func exchange(
        method: String, url: String, headers: [HeaderField], body: RequestBody?, timeouts: Timeouts,
        adapter: any RequestAdapter, callbacks: HTTPTransport.Callbacks, again: Bool = true
    ) -> HTTPTransport.Attempt {
        let adapted = adapter.adapt(headers)
        let first = NIOLockedValueBox<HTTPTransport.Attempt?>(nil)
        var checked = callbacks
        checked.completed = { outcome in
            guard again, adapted.sendAgain(outcome) else { return callbacks.completed(outcome) }
            self.queue.async {
                let retry = self.exchange(
                    method: method, url: url, headers: headers, body: body, timeouts: timeouts, adapter: adapter,
                    callbacks: callbacks, again: false)
                first.withLockedValue { $0 }?.adopt(retry)
            }
        }
        let attempt = transport.exchange(
            method: method, url: url, headers: adapted.headers, body: body, timeouts: timeouts, callbacks: checked)
        first.withLockedValue { $0 = attempt }
        return attempt
    }

    /// What a kind's tasks share in this engine (S3: the server's clock),
    /// made on first use. On `queue`.
    func shared<State: AnyObject>(_ kind: String, _ make: () -> State) -> State {
        if let state = kindStates[kind] as? State { return state }
        let state = make()
        kindStates[kind] = state
        return state
    }
}
