/// The bandwidth limit's steps for `[` and `]`: powers of two from 64 KiB/s
/// to 1 GiB/s, and no limit above them.
enum RateSteps {
    static let steps: [Int64] = (16...30).map { Int64(1) << $0 }
    /// Where `[` starts without a limit and nothing runs.
    static let firstLimit: Int64 = 8 << 20

    /// The step below (`raising` false) or above `current`. Lowering from no
    /// limit starts at the step under what the uploads now move together,
    /// so the first press is felt; raising past the top lifts the limit.
    static func next(from current: Int64?, raising: Bool, speed: Double) -> Int64? {
        guard let current else {
            if raising { return nil }
            guard speed >= Double(steps[0]) else { return firstLimit }
            return steps.last { Double($0) < speed } ?? steps[0]
        }
        if raising { return steps.first { $0 > current } }
        return steps.last { $0 < current } ?? steps[0]
    }
}
