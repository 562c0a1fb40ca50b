import Foundation
import Testing

@testable import UploadEngine

/// `Retry-After` in both of its forms, and the HTTP dates it may carry.
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

    @Test func imfFixdateIsReadExactly() {
        #expect(HTTPDate.parse("Wed, 21 Oct 2015 07:28:00 GMT") == date)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 23:59:59 GMT") == Date(timeIntervalSince1970: 951_868_799))
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
    }

    @Test func otherTextIsNoDate() {
        for text in [
            "Wed, 21 Oct 2015 07:28:00 UTC", "Wed, 21 Oct 2015 07:28 GMT", "Wed 21 Oct 2015 07:28:00 GMT",
            "Xyz, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Foo 2015 07:28:00 GMT", "Wed, 32 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 24:00:00 GMT", "Wed, 2x Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT",
            "", "Wed, 21 Oct 2015 07:28:00 GMT ",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }
}
