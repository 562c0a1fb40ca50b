import FoundationEssentials

/// An HTTP date in the preferred format, IMF-fixdate:
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Parsed by hand: it is a fixed layout,
/// and a `DateFormatter` is costly to build and not safe to share between
/// threads.
enum HTTPDate {
    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Date? {
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 ASCII characters.
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[25...].elementsEqual(" GMT".utf8) else {
            return nil
        }
        func word(_ start: Int, _ length: Int) -> String {
            String(decoding: bytes[start..<start + length], as: UTF8.self)
        }
        func number(_ start: Int, _ length: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + length] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let spaces = [4, 7, 11, 16]
        guard spaces.allSatisfy({ bytes[$0] == UInt8(ascii: " ") }), bytes[19] == UInt8(ascii: ":"),
            bytes[22] == UInt8(ascii: ":"), weekdays.contains(word(0, 3)),
            let day = number(5, 2), let monthIndex = months.firstIndex(of: word(8, 3)), let year = number(12, 4),
            let hour = number(17, 2), let minute = number(20, 2), let second = number(23, 2),
            (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
    /// (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
