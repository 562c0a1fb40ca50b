/// Speed and ETA from a stream of byte counts: an exponentially weighted
/// average over about two seconds, so the figure is steady but follows change.
/// Each reading counts by the time it covers, and the average is divided by
/// the weight gathered so far: in the first seconds it is the plain average
/// since the start. Seeded with its first reading instead, it showed 1.7×
/// the rate a second into a `--limit-rate` upload (the first write fills the
/// socket's buffer at once), and the ETA was short by as much.
struct ProgressMeter: Sendable, Hashable {
    private var lastBytes: Int64 = 0
    private var lastTime: ContinuousClock.Instant?
    /// The weighted sum of readings, and the sum of their weights (up to 1).
    private var smoothed: Double = 0
    private var weight: Double = 0
    private let timeConstant: Double = 2

    var bytesPerSecond: Double { weight > 0 ? smoothed / weight : 0 }

    mutating func reset(at time: ContinuousClock.Instant) {
        lastBytes = 0
        lastTime = time
        smoothed = 0
        weight = 0
    }

    /// Takes `bytes` as the new starting point without counting them as
    /// sent now: a resumed upload's offset, learned from the server.
    mutating func rebase(bytes: Int64, at time: ContinuousClock.Instant) {
        lastBytes = bytes
        lastTime = time
    }

    mutating func record(bytes: Int64, at time: ContinuousClock.Instant) {
        guard let lastTime else {
            self.lastTime = time
            lastBytes = bytes
            return
        }
        let elapsed = Self.seconds(time - lastTime)
        guard elapsed > 0.001, bytes >= lastBytes else { return }
        let instant = Double(bytes - lastBytes) / elapsed
        let share = 1 - exp(-elapsed / timeConstant)
        smoothed += share * (instant - smoothed)
        weight += share * (1 - weight)
        self.lastTime = time
        lastBytes = bytes
    }

    func eta(sent: Int64, total: Int64?) -> Duration? {
        guard let total, bytesPerSecond > 1 else { return nil }
        let remaining = Double(max(0, total - sent))
        return .milliseconds(Int64(remaining / bytesPerSecond * 1000))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

#if canImport(Glibc)
    import Glibc
#endif
