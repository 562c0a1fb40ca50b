import Foundation
import Testing

@testable import UploadEngine

/// `Retry-After` in both of its forms (the HTTP date itself: WireRulesTests).
@Suite struct RetryAfterTests {
    /// 2015-10-21 07:28:00 UTC.
    let date = Date(timeIntervalSince1970: 1_445_412_480)

    @Test func delaySeconds() {
        #expect(RetryAfter.parse("3") == .seconds(3))
        #expect(RetryAfter.parse(" 0 ") == .seconds(0))
        #expect(RetryAfter.parse("-1") == nil)
        #expect(RetryAfter.parse("soon") == nil)
        #expect(RetryAfter.parse("") == nil)
    }

    @Test func httpDate() {
        let header = "Wed, 21 Oct 2015 07:28:00 GMT"
        #expect(RetryAfter.parse(header, now: date - 90) == .seconds(90))
        #expect(RetryAfter.parse(header, now: date - 0.25) == .milliseconds(250))
        #expect(RetryAfter.parse(header, now: date + 5) == .zero, "a date in the past means now")
        #expect(RetryAfter.parse(header) == .zero, "with the real clock, 2015 is past")
    }
}
