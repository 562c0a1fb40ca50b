import Dispatch
import FormData
import FoundationEssentials
import WireRules

/// Access tokens of service-account keys, shared by an engine's GCS tasks:
/// one exchange an hour, not one a file, and tasks that start together
/// wait for the same one. On the engine's queue.
final class GCSTokens {
    var tokens: [String: (token: String, until: ContinuousClock.Instant)] = [:]
    /// Tasks waiting for a key's token under way.
    var waiting: [String: [(Result<String, UploadFailure>) -> Void]] = [:]

    /// A token good for a minute more at least.
    func valid(_ key: String) -> String? {
        guard let held = tokens[key], held.until > .now + .seconds(60) else { return nil }
        return held.token
    }
}

extension GCSDriver {
    /// Gives the driver a token of the service account `key` (cached, or
    /// from its token endpoint), then goes on with `then`; else ends the attempt.
    func authorize(
        _ key: String, _ id: TaskID, attempt number: Int, on engine: UploadEngine,
        then: @escaping (GCSDriver) -> Void
    ) {
        let tokens = engine.shared("gcs") { GCSTokens() }
        if let held = tokens.valid(key) {
            token = held
            return then(self)
        }
        let fetching = tokens.waiting[key] != nil
        tokens.waiting[key, default: []].append { result in
            guard engine.isCurrent(id, attempt: number), let driver = engine.records[id]?.driver as? GCSDriver
            else { return }
            switch result {
            case .success(let granted):
                driver.token = granted
                then(driver)
            case .failure(let failure):
                engine.finishResumable(id, attempt: number, .failure(failure), offset: driver.machine?.offset ?? 0)
            }
        }
        if !fetching { fetchToken(key, request: engine.records[id]?.sending, on: engine) }
    }

    private func fetchToken(_ key: String, request: UploadRequest?, on engine: UploadEngine) {
        @Sendable func done(_ result: Result<(token: String, seconds: Int), UploadFailure>) {
            let tokens = engine.shared("gcs") { GCSTokens() }
            if case .success(let granted) = result {
                tokens.tokens[key] = (granted.token, .now + .seconds(granted.seconds))
            }
            for waiter in tokens.waiting.removeValue(forKey: key) ?? [] { waiter(result.map(\.token)) }
        }
        let account: GCSServiceAccount
        let body: [UInt8]
        do throws(UploadFailure) {
            account = try GCSServiceAccount.load(key)
            body = try account.tokenRequestBody()
        } catch {
            return done(.failure(error))
        }
        _ = engine.transport.exchange(
            method: "POST", url: account.tokenURI, headers: [HeaderField("Accept", "application/json")],
            body: RequestBody(contentType: "application/x-www-form-urlencoded", segments: [.bytes(body)]),
            timeouts: request?.timeouts ?? Timeouts(),
            callbacks: engine.releaseCallbacks { result in
                engine.queue.async {
                    switch result {
                    case .success(let answer) where answer.status == 200:
                        guard let granted = GCSServiceAccount.token(from: answer.body) else {
                            return done(.failure(.protocolError("the token endpoint's answer has no access_token")))
                        }
                        done(.success(granted))
                    case .success(let answer):
                        let reason = GCSUploadStateMachine.message(answer.body).map { ": " + $0 } ?? ""
                        done(
                            .failure(
                                .httpStatus(
                                    answer.status,
                                    message: "the token endpoint refused \(account.clientEmail)'s key\(reason)")))
                    case .failure(let failure):
                        done(.failure(failure))
                    }
                }
            })
    }
}
