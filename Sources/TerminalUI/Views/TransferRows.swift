import UploadEngine

/// Plain-text progress rows, one per task plus a totals line, as
/// `hoist send` prints them on a terminal (like rclone's). Pure: tasks in,
/// lines out, each exactly `width` columns.
public enum TransferRows {
    /// Column sizes for a width: the bar shrinks first, then speed goes,
    /// so the name keeps at least 16 columns down to 80; below that the
    /// bytes go, then the bar, so the status (`failed 503`) always shows.
    struct Layout {
        /// 0: no bar.
        var bar: Int
        var showSpeed: Bool
        var showSize: Bool

        init(width: Int) {
            showSpeed = width >= 96
            showSize = width >= 72
            let fixed = (showSpeed ? 70 : 56) - (showSize ? 0 : 23)
            bar = width >= 49 ? max(6, min(20, width - fixed - 18)) : 0
        }

        /// ` [####--]  45%    4.50 MiB / 10.0 MiB    2.10 MiB/s  ETA 3s   `: what follows the name.
        func columns(fraction: Double?, size: String, speed: String, eta: String) -> String {
            (bar > 0 ? " " + Format.bar(fraction, width: bar) : "")
                + " " + TextWidth.fit(fraction.map(Format.percent) ?? "", toColumns: 4, alignRight: true)
                + (showSize ? "  " + TextWidth.fit(size, toColumns: 21, alignRight: true) : "")
                + (showSpeed ? "  " + TextWidth.fit(speed, toColumns: 12, alignRight: true) : "")
                + "  " + TextWidth.fit(eta, toColumns: 9)
        }
    }

    /// Up to `maxRows` task rows (running first, then waiting, then the
    /// latest finished) and the totals line last.
    public static func lines(for tasks: [TaskSnapshot], width: Int, maxRows: Int) -> [String] {
        lines(
            unfinished: tasks.filter { !$0.state.isFinished }, finished: tasks.filter { $0.state.isFinished },
            totals: TransferTotals(tasks), width: width, maxRows: maxRows)
    }

    /// The same from what a caller keeps as it goes (`LiveProgress`): the
    /// unfinished tasks (in the order they are listed, waiting ones after
    /// the running), some finished ones (the latest are shown), and the
    /// totals of all.
    public static func lines(
        unfinished: [TaskSnapshot], finished: [TaskSnapshot], totals: TransferTotals, width: Int, maxRows: Int,
        now: ContinuousClock.Instant = .now
    ) -> [String] {
        let running = unfinished.filter { $0.state.isRunning }
        let waiting = unfinished.filter { !$0.state.isRunning }
        let latest = finished.sorted { ($0.finishedAt ?? $0.addedAt) > ($1.finishedAt ?? $1.addedAt) }
        var shown = Array((running + waiting).prefix(maxRows))
        shown += latest.prefix(max(0, maxRows - shown.count))
        shown.sort { $0.id < $1.id }
        return shown.map { row($0, width: width, now: now) } + [self.totals(totals, width: width)]
    }

    /// `name [#####-----]  45%  4.50 MiB / 10.0 MiB  2.10 MiB/s  ETA 3s  sending`
    public static func row(_ task: TaskSnapshot, width: Int, now: ContinuousClock.Instant = .now) -> String {
        let progress = task.progress
        let sent = progress.bytesSent
        let size = progress.totalBytes.map { Format.bytes(sent) + " / " + Format.bytes($0) } ?? Format.bytes(sent)
        let fraction = task.state == .succeeded && progress.totalBytes == nil ? 1 : progress.fraction
        // Once the body is sent, speed and ETA say nothing ("waiting reply" does).
        let speed = task.state == .sending ? Format.rate(progress.bytesPerSecond) : ""
        let eta = task.state == .sending ? (progress.eta.map { "ETA " + Format.duration($0) } ?? "") : ""
        let tail =
            Layout(width: width).columns(fraction: fraction, size: size, speed: speed, eta: eta)
            + "  " + TextWidth.fit(status(task, now: now), toColumns: 14)
        let nameWidth = max(8, width - TextWidth.columns(of: tail))
        return TextWidth.fit(TextWidth.fitPath(task.request.displayName, toColumns: nameWidth) + tail, toColumns: width)
    }

    /// A word or two for the task's state, with the HTTP status when there is one.
    public static func status(_ task: TaskSnapshot, now: ContinuousClock.Instant = .now) -> String {
        let attempt = task.attempts > 1 ? " #\(task.attempts)" : ""
        switch task.state {
        case .queued: return "queued"
        case .waitingForDependency(let id): return "after \(id)"
        // A resumed upload says where it went on from (its bar starts there).
        case .sending: return task.resumedFrom.map { "from " + Format.bytes($0) } ?? "sending" + attempt
        case .awaitingResponse: return "waiting reply"
        case .waitingToRetry(let at): return "retry in " + Format.countdown(to: at, now: now)
        case .succeeded: return "done " + (task.response.map { "\($0.status)" } ?? "")
        case .failed(let failure):
            if let status = task.response?.status { return "failed \(status)" }
            switch failure {
            case .idleTimeout, .connectTimeout, .totalTimeout: return "timed out"
            case .connectionFailed, .unknownHost: return "no connection"
            case .connectionLost: return "conn. lost"
            case .input: return "bad input"
            default: return "failed"
            }
        case .cancelled: return "cancelled"
        case .interrupted(nil): return "interrupted"
        case .interrupted: return "interrupted !"
        }
    }

    /// `Total 12/100 done, 1 failed [###-------]  34%  1.20 GiB / 3.40 GiB  120 MiB/s  ETA 18s`
    public static func totals(_ totals: TransferTotals, width: Int) -> String {
        let done = totals.succeeded
        let failed = totals.failed
        let cancelled = totals.cancelled
        let sent = totals.bytesSent
        let known = totals.unknownSizes == 0
        let total = totals.totalBytes
        let speed = totals.bytesPerSecond
        let fraction: Double? =
            known ? (total == 0 ? (done == totals.count ? 1 : 0) : min(1, Double(sent) / Double(total))) : nil
        var counts = "Total \(done)/\(totals.count) done"
        if failed > 0 { counts += ", \(failed) failed" }
        if cancelled > 0 { counts += ", \(cancelled) cancelled" }
        let size = known ? Format.bytes(sent) + " / " + Format.bytes(total) : Format.bytes(sent)
        let eta: String
        if known, speed > 1, sent < total {
            eta = "ETA " + Format.duration(.seconds(Double(total - sent) / speed))
        } else {
            eta = ""
        }
        let tail = Layout(width: width).columns(
            fraction: fraction, size: size, speed: speed > 1 ? Format.rate(speed) : "", eta: eta)
        // Aligned with the rows' name column; long counts spill into the unused status column.
        let nameWidth = max(TextWidth.columns(of: counts), width - TextWidth.columns(of: tail) - 16)
        return TextWidth.fit(TextWidth.fit(counts, toColumns: nameWidth) + tail, toColumns: width)
    }
}

/// What the totals line counts, kept as tasks change: each task's last
/// snapshot is added once, and taken out again before its next one.
public struct TransferTotals: Equatable, Sendable {
    public private(set) var count = 0
    public private(set) var succeeded = 0
    public private(set) var failed = 0
    public private(set) var cancelled = 0
    /// Tasks whose size is not known (standard input): no fraction then.
    public private(set) var unknownSizes = 0
    public private(set) var bytesSent: Int64 = 0
    public private(set) var totalBytes: Int64 = 0
    /// The running tasks' speed together: not kept, given when drawn.
    public var bytesPerSecond: Double = 0

    public init() {}

    public init(_ tasks: [TaskSnapshot]) {
        for task in tasks { add(Part(task)) }
        bytesPerSecond = tasks.filter { $0.state == .sending }.reduce(0) { $0 + $1.progress.bytesPerSecond }
    }

    /// One task's share: small, so a caller can keep one per task.
    public struct Part: Equatable, Sendable {
        enum Outcome: UInt8 { case none, succeeded, failed, cancelled }
        let outcome: Outcome
        let bytesSent: Int64
        let totalBytes: Int64?

        public init(_ task: TaskSnapshot) {
            switch task.state {
            case .succeeded: outcome = .succeeded
            case .failed: outcome = .failed
            case .cancelled: outcome = .cancelled
            default: outcome = .none
            }
            bytesSent = task.progress.bytesSent
            totalBytes = task.progress.totalBytes
        }
    }

    public mutating func add(_ part: Part) { adjust(part, by: 1) }

    public mutating func remove(_ part: Part) { adjust(part, by: -1) }

    private mutating func adjust(_ part: Part, by sign: Int) {
        count += sign
        switch part.outcome {
        case .succeeded: succeeded += sign
        case .failed: failed += sign
        case .cancelled: cancelled += sign
        case .none: break
        }
        bytesSent += Int64(sign) * part.bytesSent
        if let total = part.totalBytes { totalBytes += Int64(sign) * total } else { unknownSizes += sign }
    }
}
