import Testing
import WireRules

@Suite struct HTTPDateTests {
    @Test(arguments: [
        ("Wed, 21 Oct 2015 07:28:00 GMT", Int64(1_445_412_480)),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Tue, 29 Feb 2000 23:59:59 GMT", 951_868_799),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Sat, 01 Jan 0000 00:00:00 GMT", -62_167_219_200),
        ("Wed, 25 Nov 2026 18:00:00 GMT", 1_795_629_600),
    ])
    func readAndWritten(_ text: String, _ seconds: Int64) {
        #expect(HTTPDate.parse(text) == seconds)
        #expect(HTTPDate.format(secondsSince1970: seconds) == text)
    }

    @Test func otherTextIsNoDate() {
        for text in [
            "Wed, 21 Oct 2015 07:28:00 UTC", "Wed, 21 Oct 2015 07:28 GMT", "Wed 21 Oct 2015 07:28:00 GMT",
            "Xyz, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Foo 2015 07:28:00 GMT", "Wed, 32 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 24:00:00 GMT", "Wed, 2x Oct 2015 07:28:00 GMT", "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed Oct 21 07:28:00 2015", "", "Wed, 21 Oct 2015 07:28:00 GMT ", " Wed, 21 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 07:28:00 GMT\r\n", "Wed, 00 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:60:00 GMT",
            "Wed, 21 Oct -015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:0\u{0} GMT", "Wéd, 21 Oct 2015 07:28:00 GMT",
            "wed, 21 oct 2015 07:28:00 gmt", "Wed,\u{A0}21 Oct 2015 07:28:00 GMT",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func writtenDatesReadBack() {
        var seconds: Int64 = -62_167_219_200
        while seconds < 253_402_300_799 {
            let text = HTTPDate.format(secondsSince1970: seconds)
            #expect(text.utf8.count == 29)
            #expect(HTTPDate.parse(text) == seconds, "\(text)")
            seconds += 7_654_321_987 / 7  // days, hours and weekdays that move from one to the next
        }
        #expect(HTTPDate.format(secondsSince1970: .max) == "Fri, 31 Dec 9999 23:59:59 GMT", "clamped")
        #expect(HTTPDate.format(secondsSince1970: .min) == "Sat, 01 Jan 0000 00:00:00 GMT", "clamped")
    }
}
