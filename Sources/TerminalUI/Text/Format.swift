/// Human units for sizes, rates and durations, as shown in lists.
public enum Format {
    /// Binary units: "0 B", "999 B", "1.0 KiB", "4.5 MiB", "1.00 GiB".
    public static func bytes(_ count: Int64) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return "\(fixed(value, digits: value < 10 ? 2 : value < 100 ? 1 : 0)) \(units[unit])"
    }

    public static func rate(_ bytesPerSecond: Double) -> String {
        bytesPerSecond < 1 ? "-" : bytes(Int64(bytesPerSecond)) + "/s"
    }

    /// "0s", "42s", "3m05s", "2h07m"; partial seconds round up, so a
    /// countdown reads 0s only at the end.
    public static func duration(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let total = max(0, Int(seconds) + (attoseconds > 0 ? 1 : 0))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m" + twoDigits(total % 60) + "s" }
        return "\(total / 3600)h" + twoDigits(total / 60 % 60) + "m"
    }

    /// The time left until `at` (a retry's), never below 0.
    public static func countdown(to at: ContinuousClock.Instant, now: ContinuousClock.Instant) -> String {
        duration(max(.zero, at - now))
    }

    /// `35 ms`, `7.2 s`, then as `duration`: `1m11s`.
    public static func milliseconds(_ ms: Int64) -> String {
        if ms < 1000 { return "\(ms) ms" }
        if ms < 60_000 { return "\(ms / 1000).\(ms % 1000 / 100) s" }
        return duration(.milliseconds(ms))
    }

    /// A percentage that reads 100% only when complete.
    public static func percent(_ fraction: Double) -> String {
        let value = Int((fraction * 100).rounded(.down))
        return "\(fraction >= 1 ? 100 : min(99, value))%"
    }

    /// "[#####-----]" with `width` cells between the brackets.
    public static func bar(_ fraction: Double?, width: Int) -> String {
        guard width > 0 else { return "" }
        guard let fraction else { return "[" + String(repeating: "~", count: width) + "]" }
        let filled = fraction >= 1 ? width : min(width - 1, Int((fraction * Double(width)).rounded(.down)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if digits == 0 { return "\(Int(rounded))" }
        let decimals = text.split(separator: ".").last?.count ?? 0
        if decimals < digits { text += String(repeating: "0", count: digits - decimals) }
        return text
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
