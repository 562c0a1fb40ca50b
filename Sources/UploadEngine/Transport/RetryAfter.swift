import FoundationEssentials
import WireRules

/// `Retry-After` (RFC 9110, section 10.2.3): delay-seconds or an HTTP date.
enum RetryAfter {
    /// The wait the header asks for; a date in the past means no wait, and
    /// a value that is neither form means no header.
    static func parse(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: " \t")
        if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
        guard let seconds = HTTPDate.parse(trimmed) else { return nil }
        return .milliseconds(max(0, Int((TimeInterval(seconds) - now.timeIntervalSince1970) * 1000)))
    }
}
