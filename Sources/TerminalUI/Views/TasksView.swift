import UploadEngine

/// The Tasks pane: one row per task and a totals line. Only the visible
/// rows are drawn, so 1,000 tasks cost no more than 20.
enum TasksView {
    /// Which columns fit a width: the bar shrinks first, then attempts,
    /// ETA and speed go, so the name keeps at least 14 columns.
    struct Columns: Equatable {
        var bar = 12
        var speed = true
        var eta = true
        var attempts = true
        var name = 0

        static let percent = 4, bytes = 17, speedWidth = 10, etaWidth = 9, status = 3, attemptsWidth = 3

        init(width: Int) {
            func fixed(_ c: Columns) -> Int {
                2 + 1 + (c.bar > 0 ? c.bar + 3 : 0) + Columns.percent + 1 + Columns.bytes + 1
                    + (c.speed ? Columns.speedWidth + 1 : 0)
                    + (c.eta ? Columns.etaWidth + 1 : 0) + Columns.status + (c.attempts ? Columns.attemptsWidth + 1 : 0)
            }
            while width - fixed(self) < 16 {
                if bar > 8 {
                    bar -= 2
                } else if attempts {
                    attempts = false
                } else if eta {
                    eta = false
                } else if speed {
                    speed = false
                } else if bar > 0 {
                    bar = 0
                } else {
                    break
                }
            }
            name = max(4, width - fixed(self))
        }
    }

    static func render(_ model: AppModel, into grid: inout Grid, in rect: Rect) {
        let focused = model.focus == .tasks && model.overlay == nil
        let visible = model.tasks.visible
        var title = Pane.tasks.title
        if let input = model.filterInput {
            title += " / " + input.text + "▏"
        } else if !model.tasks.filter.isEmpty {
            title += " (filter: \(model.tasks.filter))"
        }
        Frame.draw(
            &grid, rect, title: title, focused: focused || model.filterInput != nil,
            trailer: (model.markedTasks.isEmpty ? "" : "\(model.markedTasks.count) marked · ")
                + position(model.cursor(.tasks), of: visible.count))
        let inner = rect.inset(1)
        guard inner.height >= 1 else { return }
        let (list, totalsRow) = inner.splitBottom(1)
        let columns = Columns(width: inner.width)
        if visible.isEmpty {
            let text =
                model.tasks.count == 0 ? "no uploads yet: stage files, then press u" : "no task matches the filter"
            grid.put(text, x: list.x + 1, y: list.y, style: Style.plain.dimmed, clip: list)
        }
        let top = model.scroll[.tasks, default: 0]
        for row in 0..<list.height {
            let index = top + row
            guard index < visible.count, let task = model.tasks[visible[index]] else { break }
            drawRow(
                task, marked: model.markedTasks.contains(task.id), paused: model.queue.isPaused, now: model.now,
                columns: columns, into: &grid, at: list.row(row))
            if index == model.cursor(.tasks) { ListPanes.highlight(&grid, list.row(row), focused: focused) }
        }
        drawTotals(model.tasks.totals, into: &grid, at: totalsRow)
    }

    static func glyph(_ state: TaskState) -> (String, Style) {
        if state.isPaused { return ("‖", Style.fg(.yellow)) }
        switch state {
        case .queued: return ("·", Style.plain.dimmed)
        case .waitingForDependency: return ("↳", Style.plain.dimmed)
        case .sending: return ("↑", Style.fg(.cyan).bolded)
        case .awaitingResponse: return ("⋯", Style.fg(.cyan))
        case .waitingToRetry: return ("↻", Style.fg(.yellow))
        case .succeeded: return ("✔", Style.fg(.green).bolded)
        case .failed: return ("✘", Style.fg(.red).bolded)
        case .cancelled: return ("⊘", Style.fg(.yellow))
        case .interrupted(nil): return ("↯", Style.fg(.magenta))
        case .interrupted: return ("!", Style.fg(.red).bolded)
        }
    }

    static func drawRow(
        _ task: TaskSnapshot, marked: Bool = false, paused: Bool = false, now: ContinuousClock.Instant = .now,
        columns: Columns, into grid: inout Grid, at rect: Rect
    ) {
        let (mark, markStyle) = glyph(task.state)
        let progress = task.progress
        let y = rect.y
        var x = rect.x
        x += grid.put(mark + " ", x: x, y: y, style: markStyle, clip: rect)
        let nameStyle: Style
        switch task.state {
        case .failed: nameStyle = .fg(.red)
        case .cancelled: nameStyle = .fg(.yellow)
        case .interrupted: nameStyle = .fg(.magenta)
        default: nameStyle = .plain
        }
        // A chain's later links hang under the one they wait for; a marked task is bold, with a dot.
        let name = (marked ? "● " : "") + (task.dependency == nil ? "" : "╰ ") + task.request.displayName
        let nameWidth = TextWidth.columns(of: name)
        let nameEnd = x + columns.name
        x += grid.put(
            TextWidth.fitPath(name, toColumns: columns.name), x: x, y: y,
            style: marked ? Style.fg(.yellow).bolded : nameStyle, clip: rect)
        if let resumed = resumeText(task), nameWidth + 2 + TextWidth.columns(of: resumed) <= columns.name {
            grid.put("  " + resumed, x: x, y: y, style: Style.fg(.blue), clip: rect)
        }
        x = nameEnd + 1
        let fraction = task.state == .succeeded && progress.totalBytes == nil ? 1 : progress.fraction
        if columns.bar > 0 {
            let barStyle: Style =
                task.state == .succeeded ? .fg(.green) : task.state.isFinished ? .fg(.red) : .fg(.cyan)
            x += grid.put("[", x: x, y: y, style: Style.plain.dimmed, clip: rect)
            let filled = Int(((fraction ?? 0) * Double(columns.bar)).rounded(.down))
            // What the server already had when the upload went on is drawn apart.
            var resumed = 0
            if let from = task.resumedFrom, let total = progress.totalBytes, total > 0 {
                resumed = min(filled, Int((Double(from) / Double(total) * Double(columns.bar)).rounded(.down)))
            }
            x += grid.put(String(repeating: "▓", count: resumed), x: x, y: y, style: Style.fg(.blue), clip: rect)
            x += grid.put(String(repeating: "█", count: filled - resumed), x: x, y: y, style: barStyle, clip: rect)
            x += grid.put(
                String(repeating: "░", count: columns.bar - filled), x: x, y: y, style: Style.plain.dimmed, clip: rect)
            x += grid.put("] ", x: x, y: y, style: Style.plain.dimmed, clip: rect)
        }
        x +=
            grid.put(
                TextWidth.fit(fraction.map(Format.percent) ?? "", toColumns: Columns.percent, alignRight: true), x: x,
                y: y, clip: rect) + 1
        let bytes =
            progress.totalBytes.map { Format.bytes(progress.bytesSent) + "/" + Format.bytes($0) }
            ?? Format.bytes(progress.bytesSent)
        x += grid.put(TextWidth.fit(bytes, toColumns: Columns.bytes, alignRight: true), x: x, y: y, clip: rect) + 1
        if columns.speed {
            let speed = task.state == .sending ? Format.rate(progress.bytesPerSecond) : ""
            x +=
                grid.put(TextWidth.fit(speed, toColumns: Columns.speedWidth, alignRight: true), x: x, y: y, clip: rect)
                + 1
        }
        if columns.eta {
            x +=
                grid.put(
                    TextWidth.fit(
                        etaText(task, paused: paused, now: now), toColumns: Columns.etaWidth, alignRight: true), x: x,
                    y: y,
                    style: Style.plain.dimmed, clip: rect) + 1
        }
        let status = task.response.map { String($0.status) } ?? "—"
        // A 200 whose answer failed the expectation is a failure: red.
        let statusStyle: Style =
            task.response.map { (200..<300).contains($0.status) && task.failure == nil ? .fg(.green) : .fg(.red) }
            ?? Style.plain.dimmed
        x += grid.put(
            TextWidth.fit(status, toColumns: Columns.status, alignRight: true), x: x, y: y, style: statusStyle,
            clip: rect)
        if columns.attempts, task.attempts > 1 {
            grid.put(" ×\(task.attempts)", x: x, y: y, style: Style.fg(.yellow), clip: rect)
        }
    }

    /// "resumed at 2.90 GiB": a resumable upload that went on from the
    /// server's offset, or that can (interrupted, with a checkpoint).
    static func resumeText(_ task: TaskSnapshot) -> String? {
        if let from = task.resumedFrom { return "resumed at " + Format.bytes(from) }
        if task.isInterrupted, let checkpoint = task.checkpoint, checkpoint.offset > 0 {
            return "resumes at " + Format.bytes(checkpoint.offset)
        }
        return nil
    }

    /// ETA while sending; otherwise a word for where the task is.
    static func etaText(_ task: TaskSnapshot, paused: Bool = false, now: ContinuousClock.Instant = .now) -> String {
        switch task.state {
        case .sending: return task.progress.eta.map { "ETA " + Format.duration($0) } ?? ""
        case .awaitingResponse: return "waiting"
        case .queued: return paused ? "paused" : "queued"
        case .waitingForDependency: return "after"
        case .waitingToRetry(let at): return "retry " + Format.countdown(to: at, now: now)
        case .interrupted(nil): return task.request.isResumable ? "resumable" : "to resend"
        case .interrupted: return "changed"
        case .cancelled where task.isPaused: return "paused"
        case .succeeded, .failed, .cancelled:
            guard let start = task.startedAt, let end = task.finishedAt else { return "" }
            return Format.duration(end - start)
        }
    }

    static func drawTotals(_ t: TaskList.Totals, into grid: inout Grid, at rect: Rect) {
        guard !rect.isEmpty, t.count > 0 else { return }
        var x = rect.x + 1
        let y = rect.y
        x += grid.put("\(t.count) task\(t.count == 1 ? "" : "s")", x: x, y: y, style: Style.plain.bolded, clip: rect)
        let counts: [(Int, String, Style)] = [
            (t.running, "↑", .fg(.cyan)), (t.waiting, "·", Style.plain.dimmed), (t.succeeded, "✔", .fg(.green)),
            (t.failed, "✘", .fg(.red)), (t.cancelled, "⊘", .fg(.yellow)), (t.interrupted, "↯", .fg(.magenta)),
        ]
        for (n, mark, style) in counts where n > 0 {
            x += grid.put("  \(mark) \(n)", x: x, y: y, style: style, clip: rect)
        }
        var right = Format.bytes(t.bytesSent) + (t.totalBytes > 0 ? "/" + Format.bytes(t.totalBytes) : "")
        if t.totalBytes > 0, t.sizesKnown { right += "  " + Format.percent(Double(t.bytesSent) / Double(t.totalBytes)) }
        if t.running > 0 {
            right += "  " + Format.rate(t.bytesPerSecond)
            if t.sizesKnown, t.bytesPerSecond >= 1 {
                let seconds = Double(max(0, t.totalBytes - t.bytesSent)) / t.bytesPerSecond
                right += "  ETA " + Format.duration(.milliseconds(Int64(seconds * 1000)))
            }
        }
        let width = TextWidth.columns(of: right)
        if rect.maxX - 1 - width > x + 1 {
            grid.put(right, x: rect.maxX - 1 - width, y: y, style: Style.plain.bolded, clip: rect)
        }
    }
}
