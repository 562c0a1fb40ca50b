/// The HTTP date (RFC 9110 IMF-fixdate), `Sun, 06 Nov 1994 08:49:37 GMT`,
/// in whole seconds since 1970 so this module needs no Foundation. Written
/// and read by hand: the layout is fixed, and strftime's `%a`/`%b` follow
/// the process locale, while a DateFormatter is costly and not thread-safe.
public enum HTTPDate {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The seconds since 1970-01-01 00:00:00 UTC that `text` names, or nil
    /// when it is not exactly an IMF-fixdate (the obsolete RFC 850 and
    /// asctime forms are not read).
    public static func parse(_ text: some StringProtocol) -> Int64? {
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 ASCII characters.
        let bytes = Array(text.utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[25...].elementsEqual(" GMT".utf8) else {
            return nil
        }
        func word(_ start: Int) -> String { String(decoding: bytes[start..<start + 3], as: UTF8.self) }
        func number(_ start: Int, _ length: Int) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[start..<start + length] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard [4, 7, 11, 16].allSatisfy({ bytes[$0] == UInt8(ascii: " ") }), bytes[19] == UInt8(ascii: ":"),
            bytes[22] == UInt8(ascii: ":"), weekdays.contains(word(0)),
            let day = number(5, 2), let monthIndex = months.firstIndex(of: word(8)), let year = number(12, 4),
            let hour = number(17, 2), let minute = number(20, 2), let second = number(23, 2),
            (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: Int64(monthIndex + 1), day: day)
        return ((days * 24 + hour) * 60 + minute) * 60 + second
    }

    /// `seconds` since 1970 as an IMF-fixdate; a year is written with four digits
    /// (years outside 0...9999 cannot be, and are clamped to that range).
    public static func format(secondsSince1970 seconds: Int64) -> String {
        let limit: Int64 = 253_402_300_799  // 9999-12-31 23:59:59
        let seconds = min(max(seconds, -62_167_219_200), limit)  // from 0000-01-01
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(weekdays[weekday]), \(padded(day, 2)) \(months[Int(month - 1)]) \(padded(year, 4)) "
            + "\(padded(time / 3600, 2)):\(padded(time / 60 % 60, 2)):\(padded(time % 60, 2)) GMT"
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
    /// (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse: Hinnant's `civil_from_days`.
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
