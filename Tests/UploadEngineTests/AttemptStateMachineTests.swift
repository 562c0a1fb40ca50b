import FormData
import Testing

@testable import UploadEngine

/// One attempt's machine, with no I/O: byte counts and transport outcomes
/// in, progress reports and the verdict for the task out.
@Suite struct AttemptStateMachineTests {
    let now = ContinuousClock.now

    func request(retry: RetryPolicy = RetryPolicy(), success: SuccessRule = SuccessRule()) -> UploadRequest {
        UploadRequest(url: "http://127.0.0.1/up", body: .json(Array("{}".utf8)), retry: retry, success: success)
    }

    func response(_ status: Int, json: JSONValue? = nil) -> UploadResponse {
        UploadResponse(
            status: status, headers: [], elapsed: .zero, body: [], bodyBytesReceived: 0,
            content: json.map { .json($0) } ?? .empty)
    }

    func outcome(
        _ result: Result<UploadResponse, UploadFailure>, sent: Int64, early: Bool = false, fullySent: Bool = false,
        retryAfter: Duration? = nil
    ) -> UploadAttemptStateMachine.Event {
        .completed(
            HTTPTransport.Outcome(
                result: result, bytesSent: sent, answeredEarly: early, requestFullySent: fullySent,
                retryAfter: retryAfter),
            jitter: 1, now: now)
    }

    /// The action of an attempt that ended in `failure`.
    func failed(
        _ failure: UploadFailure, _ response: UploadResponse? = nil, early: Bool = false, retryIn: Duration? = nil
    ) -> UploadAttemptStateMachine.Action {
        .finish(response: response, answeredEarly: early, verdict: .attemptFailed(failure, retryIn: retryIn, now: now))
    }

    @Test func progressNeverGoesBackwardsNorPastTheTotal() {
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request())
        #expect(machine.handle(.wrote(40)) == .reportProgress(bytesSent: 40))
        #expect(machine.handle(.wrote(30)) == .reportProgress(bytesSent: 40), "a late, smaller count")
        #expect(machine.handle(.wrote(500)) == .reportProgress(bytesSent: 100))
        #expect(machine.handle(.lengthKnown(1000)) == UploadAttemptStateMachine.Action.none)
        #expect(machine.handle(.wrote(500)) == .reportProgress(bytesSent: 500), "the transport's length wins")
    }

    @Test func aWholeBodyAnswered2xxSucceeds() {
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request())
        let ok = response(200)
        #expect(
            machine.handle(outcome(.success(ok), sent: 100))
                == .finish(response: ok, answeredEarly: false, verdict: .attemptSucceeded))
        #expect(machine.bytesSent == 100)
        #expect(machine.handle(.wrote(100)) == nil, "nothing after the end")
        #expect(machine.handle(outcome(.success(ok), sent: 100)) == nil)
    }

    @Test func anAnswerBeforeTheBodyWasSentIsAFailureNotRetried() {
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request())
        let ok = response(200)
        let failure = UploadFailure.answeredEarly(status: 200, sent: 40, total: 100)
        #expect(machine.handle(outcome(.success(ok), sent: 40, early: true)) == failed(failure, ok, early: true))
    }

    @Test func anAnswerThatOnlyOvertookTheLastWriteIsNotEarly() {
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request())
        let ok = response(200)
        #expect(
            machine.handle(outcome(.success(ok), sent: 100, early: true))
                == .finish(response: ok, answeredEarly: false, verdict: .attemptSucceeded))

        var chunked = UploadAttemptStateMachine(number: 1, totalBytes: nil, request: request())
        #expect(
            chunked.handle(outcome(.success(ok), sent: 7, early: true, fullySent: true))
                == .finish(response: ok, answeredEarly: false, verdict: .attemptSucceeded),
            "of unknown length: early only when the request was not fully sent")
        var cut = UploadAttemptStateMachine(number: 1, totalBytes: nil, request: request())
        guard
            case .finish(_, true, .attemptFailed(.answeredEarly(200, 7, nil), nil, _))? =
                cut.handle(outcome(.success(ok), sent: 7, early: true, fullySent: false))
        else {
            Issue.record("expected an early answer")
            return
        }
    }

    @Test func aRetryableStatusIsRetriedAfterTheBackoffOrRetryAfter() {
        let policy = RetryPolicy(maxRetries: 2, baseDelay: .seconds(1), maxDelay: .seconds(10))
        let unavailable = response(503)
        let failure = UploadFailure.httpStatus(503, message: nil)
        var first = UploadAttemptStateMachine(number: 1, totalBytes: 10, request: request(retry: policy))
        #expect(
            first.handle(outcome(.success(unavailable), sent: 10))
                == failed(failure, unavailable, retryIn: .seconds(1)))
        var told = UploadAttemptStateMachine(number: 2, totalBytes: 10, request: request(retry: policy))
        #expect(
            told.handle(outcome(.success(unavailable), sent: 10, retryAfter: .seconds(7)))
                == failed(failure, unavailable, retryIn: .seconds(7)))
        var last = UploadAttemptStateMachine(number: 3, totalBytes: 10, request: request(retry: policy))
        #expect(
            last.handle(outcome(.success(unavailable), sent: 10)) == failed(failure, unavailable),
            "the retries are used up")
    }

    @Test func aTransportFailureIsRetriedAndKeepsNoResponse() {
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request(retry: fastRetry))
        let lost = UploadFailure.connectionLost("reset")
        #expect(machine.handle(outcome(.failure(lost), sent: 60)) == failed(lost, retryIn: .milliseconds(10)))
        #expect(machine.bytesSent == 60)

        var input = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request(retry: fastRetry))
        let changed = UploadFailure.input(.fileChanged(field: "f", path: "/a", detail: "cut"))
        #expect(input.handle(outcome(.failure(changed), sent: 60)) == failed(changed), "a local problem is not retried")
    }

    /// An answer that timed out after the whole body went: the server may
    /// hold it, so a POST is not sent again unless asked; a PUT is.
    @Test func anAnswerTimeoutResendsOnlyWhatMayGoTwice() {
        let timedOut = UploadFailure.answerTimeout(.seconds(1))
        func verdict(_ method: UploadRequest.Method, _ retry: RetryPolicy) -> UploadAttemptStateMachine.Action? {
            var sending = request(retry: retry)
            sending.method = method
            var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: sending)
            return machine.handle(outcome(.failure(timedOut), sent: 100, fullySent: true))
        }
        #expect(verdict(.post, fastRetry) == failed(timedOut), "a POST the server may hold")
        #expect(verdict(.patch, fastRetry) == failed(timedOut))
        #expect(verdict(.put, fastRetry) == failed(timedOut, retryIn: .milliseconds(10)), "a PUT replaces itself")
        var asked = fastRetry
        asked.retriesAfterSent = true
        #expect(verdict(.post, asked) == failed(timedOut, retryIn: .milliseconds(10)), "--retry-after-sent")
        let idle = UploadFailure.idleTimeout(.seconds(1))
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request(retry: fastRetry))
        #expect(
            machine.handle(outcome(.failure(idle), sent: 60)) == failed(idle, retryIn: .milliseconds(10)),
            "stalled while sending: nothing whole arrived")
    }

    @Test func theSuccessRuleDecidesBeforeTheEarlyAnswer() {
        let rule = SuccessRule(expectations: [.init(path: "RETCODE", value: "0000")])
        let answer = response(200, json: .object([.init("RETCODE", .string("0001"))]))
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: 100, request: request(success: rule))
        let failure = UploadFailure.expectationFailed(
            path: "RETCODE", expected: "0000", actual: "0001", message: nil, reason: nil)
        let action = machine.handle(outcome(.success(answer), sent: 40, early: true))
        #expect(action == failed(failure, answer, early: true))
    }

    @Test func aStreamedBodyIsNeverSentTwice() {
        let form = MultipartForm(parts: [.stream("f", from: .standardInput)])
        let stdin = UploadRequest(url: "http://127.0.0.1/up", body: .multipart(form), retry: fastRetry)
        var machine = UploadAttemptStateMachine(number: 1, totalBytes: nil, request: stdin)
        let lost = UploadFailure.connectionLost("reset")
        #expect(machine.handle(outcome(.failure(lost), sent: 60)) == failed(lost))
    }
}
