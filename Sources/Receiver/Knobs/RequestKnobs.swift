/// The per-request query knobs (`?status=`, `?reply=`, `?json=`, `?early=`, `?delay=`, `?stall=`).
/// See ``Receiver`` for what each does.
struct RequestKnobs: Equatable {
    enum Reply: Equatable {
        case invalidJSON
        case text
        /// Like an ID-card verification API: `RETCODE` "0000", or "1001" for a photo named `blurry`.
        case verify
    }

    var status: Int?
    var reply: Reply?
    var json: String?
    var early = false
    var delay: Duration?
    var stall: Duration?

    init() {}

    /// Parses the raw (still percent-encoded) query; unknown parameters are ignored.
    init(query: String?) throws(ReceiverError) {
        guard let query, !query.isEmpty else { return }
        // `+` stays a plus: JSON documents such as `1e+5` must survive.
        for (name, value) in PercentDecoding.pairs(query, plusAsSpace: false) {
            switch name {
            case "status":
                guard let code = Int(value), (200...599).contains(code) else {
                    throw .badRequest("?status=\(value) is not a status code from 200 to 599")
                }
                status = code
            case "reply":
                switch value {
                case "invalid-json": reply = .invalidJSON
                case "text": reply = .text
                case "verify": reply = .verify
                default:
                    throw .badRequest("?reply=\(value) is unknown; use reply=invalid-json, reply=text or reply=verify")
                }
            case "json":
                json = value
            case "early":
                early = !["", "0", "false", "no"].contains(value)
            case "delay":
                delay = try Self.milliseconds(value, knob: name)
            case "stall":
                stall = try Self.milliseconds(value, knob: name)
            default:
                break
            }
        }
    }

    /// The longest `?delay=` or `?stall=`: a test never needs more, and no request waits forever.
    static let maxWait = 60_000

    private static func milliseconds(_ value: String, knob: String) throws(ReceiverError) -> Duration {
        guard let ms = Int(value), (0...maxWait).contains(ms) else {
            throw .badRequest("?\(knob)=\(value) is not a number of milliseconds from 0 to \(maxWait)")
        }
        return .milliseconds(ms)
    }
}
