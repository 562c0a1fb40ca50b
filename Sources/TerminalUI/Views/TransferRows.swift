import UploadEngine

/// Plain-text progress rows, one per task plus a totals line, as
/// `hoist send` prints them on a terminal (like rclone's). Pure: tasks in,
/// lines out, each exactly `width` columns.
public enum TransferRows {
    /// Column sizes for a width: the bar shrinks first, then speed goes,
    /// so the name keeps at least 16 columns down to 80.
    struct Layout {
        var bar: Int
        var showSpeed: Bool

        init(width: Int) {
            showSpeed = width >= 96
            let fixed = showSpeed ? 70 : 56
            bar = max(6, min(20, width - fixed - 18))
        }
    }

    /// Up to `maxRows` task rows (running first, then waiting, then the
    /// latest finished) and the totals line last.
    public static func lines(for tasks: [TaskSnapshot], width: Int, maxRows: Int) -> [String] {
        let running = tasks.filter { $0.state.isRunning }
        let waiting = tasks.filter { !$0.state.isRunning && !$0.state.isFinished }
        let finished = tasks.filter { $0.state.isFinished }.sorted {
            ($0.finishedAt ?? $0.addedAt) > ($1.finishedAt ?? $1.addedAt)
        }
        var shown = Array((running + waiting).prefix(maxRows))
        shown += finished.prefix(max(0, maxRows - shown.count))
        shown.sort { $0.id < $1.id }
        return shown.map { row($0, width: width) } + [totals(tasks, width: width)]
    }

    /// `name [#####-----]  45%  4.50 MiB / 10.0 MiB  2.10 MiB/s  ETA 3s  sending`
    public static func row(_ task: TaskSnapshot, width: Int) -> String {
        let progress = task.progress
        let sent = progress.bytesSent
        let size = progress.totalBytes.map { Format.bytes(sent) + " / " + Format.bytes($0) } ?? Format.bytes(sent)
        let fraction = task.state == .succeeded && progress.totalBytes == nil ? 1 : progress.fraction
        let percent = fraction.map(Format.percent) ?? ""
        let speed = task.state.isRunning ? Format.rate(progress.bytesPerSecond) : ""
        let eta = task.state.isRunning ? (progress.eta.map { "ETA " + Format.duration($0) } ?? "") : ""
        let layout = Layout(width: width)
        let tail =
            " " + Format.bar(fraction, width: layout.bar)
            + " " + TextWidth.fit(percent, toColumns: 4, alignRight: true)
            + "  " + TextWidth.fit(size, toColumns: 21, alignRight: true)
            + (layout.showSpeed ? "  " + TextWidth.fit(speed, toColumns: 12, alignRight: true) : "")
            + "  " + TextWidth.fit(eta, toColumns: 9)
            + "  " + TextWidth.fit(status(task), toColumns: 14)
        let nameWidth = max(8, width - TextWidth.columns(of: tail))
        return TextWidth.fit(TextWidth.fit(task.request.displayName, toColumns: nameWidth) + tail, toColumns: width)
    }

    /// A word or two for the task's state, with the HTTP status when there is one.
    public static func status(_ task: TaskSnapshot) -> String {
        let attempt = task.attempts > 1 ? " #\(task.attempts)" : ""
        switch task.state {
        case .queued: return "queued"
        case .waitingForDependency(let id): return "after \(id)"
        case .sending: return "sending" + attempt
        case .awaitingResponse: return "waiting reply"
        case .waitingToRetry: return "retry pending"
        case .succeeded: return "done " + (task.response.map { "\($0.status)" } ?? "")
        case .failed(let failure):
            if let status = task.response?.status { return "failed \(status)" }
            switch failure {
            case .idleTimeout, .connectTimeout, .totalTimeout: return "timed out"
            case .connectionFailed: return "no connection"
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
    public static func totals(_ tasks: [TaskSnapshot], width: Int) -> String {
        let done = tasks.filter { $0.state == .succeeded }.count
        let failed = tasks.filter { if case .failed = $0.state { true } else { false } }.count
        let cancelled = tasks.filter { if case .cancelled = $0.state { true } else { false } }.count
        let sent = tasks.reduce(Int64(0)) { $0 + $1.progress.bytesSent }
        let known = tasks.allSatisfy { $0.progress.totalBytes != nil }
        let total = tasks.reduce(Int64(0)) { $0 + ($1.progress.totalBytes ?? 0) }
        let speed = tasks.filter { $0.state.isRunning }.reduce(0) { $0 + $1.progress.bytesPerSecond }
        let fraction: Double? =
            known ? (total == 0 ? (done == tasks.count ? 1 : 0) : min(1, Double(sent) / Double(total))) : nil
        var counts = "Total \(done)/\(tasks.count) done"
        if failed > 0 { counts += ", \(failed) failed" }
        if cancelled > 0 { counts += ", \(cancelled) cancelled" }
        let size = known ? Format.bytes(sent) + " / " + Format.bytes(total) : Format.bytes(sent)
        let eta: String
        if known, speed > 1, sent < total {
            eta = "ETA " + Format.duration(.seconds(Double(total - sent) / speed))
        } else {
            eta = ""
        }
        let layout = Layout(width: width)
        let tail =
            " " + Format.bar(fraction, width: layout.bar)
            + " " + TextWidth.fit(fraction.map(Format.percent) ?? "", toColumns: 4, alignRight: true)
            + "  " + TextWidth.fit(size, toColumns: 21, alignRight: true)
            + (layout.showSpeed
                ? "  " + TextWidth.fit(speed > 1 ? Format.rate(speed) : "", toColumns: 12, alignRight: true) : "")
            + "  " + TextWidth.fit(eta, toColumns: 9)
        // Aligned with the rows' name column; long counts spill into the unused status column.
        let nameWidth = max(TextWidth.columns(of: counts), width - TextWidth.columns(of: tail) - 16)
        return TextWidth.fit(TextWidth.fit(counts, toColumns: nameWidth) + tail, toColumns: width)
    }
}
