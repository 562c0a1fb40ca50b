import FormData
import FoundationEssentials
import NIOConcurrencyHelpers

/// SigV4 as a request adapter: each S3 request is signed as it goes (a
/// retry's date is its own), by the server's clock as far as it is known.
/// A `RequestTimeTooSkewed` answer teaches the engine's S3 tasks that clock,
/// and the request goes once more, signed by it (as the AWS SDKs correct a
/// skewed clock).
struct S3Signing: RequestAdapter {
    let line: S3RequestLine
    let signer: S3Signer

    func adapt(_ headers: [HeaderField]) -> AdaptedHeaders {
        let clock = signer.clock
        let offset = clock.offset.withLockedValue { $0 }
        let signedAt = Date().addingTimeInterval(offset + clock.override)
        let signed = signer.keys.sign(line, headers: headers, payloadHash: SigV4.unsignedPayload, at: signedAt)
        return AdaptedHeaders(headers: signed) { outcome in
            guard let skew = UploadEngine.clockSkew(outcome, signedAt: signedAt) else { return false }
            // Set, not added to: parts refused together all learn the same clock.
            clock.offset.withLockedValue { $0 = offset + skew }
            return true
        }
    }
}

/// An S3 attempt's keys, and the clock the engine's S3 tasks share.
struct S3Signer: Sendable {
    let keys: SigV4
    let clock: S3Clock
}

/// The S3 server's clock as this engine knows it.
final class S3Clock: Sendable {
    /// The server's clock minus this machine's, learnt from a `RequestTimeTooSkewed` answer.
    let offset = NIOLockedValueBox<TimeInterval>(0)
    /// `HOIST_S3_CLOCK_OFFSET=SECONDS`: signs as if this machine's clock
    /// were that far off (how a skewed clock is tested).
    let override: TimeInterval

    init(environment: [String: String]) {
        override = environment["HOIST_S3_CLOCK_OFFSET"].flatMap(TimeInterval.init) ?? 0
    }
}

extension UploadEngine {
    /// The signer of an S3 attempt with `keys`. On `queue`.
    func s3Signer(_ keys: SigV4) -> S3Signer {
        S3Signer(keys: keys, clock: shared(S3Settings.kind) { S3Clock(environment: environment) })
    }

    /// One S3 exchange, signed as it goes.
    func sendSigned(
        _ line: S3RequestLine, headers: [HeaderField], body: RequestBody?, request: UploadRequest, signer: S3Signer,
        callbacks: HTTPTransport.Callbacks
    ) -> HTTPTransport.Attempt {
        exchange(
            method: line.method, url: line.url, headers: headers, body: body, timeouts: request.timeouts,
            adapter: S3Signing(line: line, signer: signer), callbacks: callbacks)
    }
}
