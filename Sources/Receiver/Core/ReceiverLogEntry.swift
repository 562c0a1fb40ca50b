/// One handled request, handed to the `log` closure of ``Receiver`` once its answer was written.
public struct ReceiverLogEntry: Sendable {
    public let method: String
    /// URL path, without the query.
    public let path: String
    /// Status answered; 0 when the connection was reset or the client went away before an answer.
    public let status: Int
    public let bodyBytes: Int64
    public let files: Int
    public let fields: Int
    public let duration: Duration
    /// "127.0.0.1:54321" when known.
    public let remoteAddress: String?

    public init(
        method: String, path: String, status: Int, bodyBytes: Int64, files: Int, fields: Int,
        duration: Duration, remoteAddress: String?
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.bodyBytes = bodyBytes
        self.files = files
        self.fields = fields
        self.duration = duration
        self.remoteAddress = remoteAddress
    }

    /// One human-readable line, e.g. "POST /upload 200 2 files 1 field 20.3 KB 12 ms".
    public var line: String {
        var words = [method, path, status == 0 ? "reset" : String(status)]
        if files > 0 { words.append("\(files) \(files == 1 ? "file" : "files")") }
        if fields > 0 { words.append("\(fields) \(fields == 1 ? "field" : "fields")") }
        words.append(Self.formatBytes(bodyBytes))
        words.append("\(Self.milliseconds(duration)) ms")
        return words.joined(separator: " ")
    }

    /// `21.9 KiB`, as the UI and `hoist send` write sizes (the Receiver
    /// stands alone, so it has its own few lines for it).
    static func formatBytes(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        let units = ["KiB", "MiB", "GiB", "TiB"]
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let digits = value < 10 ? 2 : value < 100 ? 1 : 0
        return fixed(value, fractionDigits: digits) + " " + units[unit]
    }

    /// `value` rounded to `fractionDigits` (0...2) the way printf's `%.2f` rounds: from its exact binary
    /// value, ties to even. `value` is at least 1 and below 2^52 here.
    static func fixed(_ value: Double, fractionDigits: Int) -> String {
        let scale: UInt64 = fractionDigits == 0 ? 1 : fractionDigits == 1 ? 10 : 100
        // value == significand * 2^-shift exactly; significand * scale fits in 60 bits.
        let significand = value.significandBitPattern | (1 << 52)
        let shift = 52 - Int(value.exponent)
        var scaled = significand * scale
        if shift > 0 {
            let remainder = scaled & ((1 << shift) - 1)
            let half: UInt64 = 1 << (shift - 1)
            scaled >>= shift
            if remainder > half || (remainder == half && scaled % 2 == 1) { scaled += 1 }
        } else {
            scaled <<= -shift
        }
        let whole = String(scaled / scale)
        guard fractionDigits > 0 else { return whole }
        let fraction = String(scaled % scale)
        return whole + "." + String(repeating: "0", count: fractionDigits - fraction.count) + fraction
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
