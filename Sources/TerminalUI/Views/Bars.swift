import UploadEngine
import UploadPlan

/// The top bar (target and queue) and the bottom line (key hints or a notice).
enum Bars {
    static func top(_ model: AppModel, into grid: inout Grid, in rect: Rect) {
        let bar = Style(reverse: true)
        grid.fill(rect, style: bar)
        var x = rect.x
        x += grid.put(" Hoist ", x: x, y: rect.y, style: bar.bolded, clip: rect)
        let queue = model.queue
        let state = queue.isPaused ? "■ paused" : "▶ running"
        let limit = queue.limitRate.map { " ≤" + Format.rate(Double($0)) } ?? ""
        // ↺: the slots and limit are the last session's (issue 37 #10).
        let earlier = model.liveQueueIsEarlier ? " ↺" : ""
        let queueText = " \(state) \(model.tasks.totals.running)/\(queue.concurrency)\(limit)\(earlier) "
        let target = model.target
        let body =
            target.kind != nil
            ? "object per file" : target.transfer == .tus ? "resumable" : target.bodyKind.rawValue
        // One request or each file alone: a choice for multipart bodies only; a chain, for any.
        let mode =
            model.sendMode == .chain || (!target.sendsEachFileAlone && target.bodyKind == .multipart)
            ? model.sendMode.rawValue : ""
        // Below 100 columns the URL matters more than the profile and mode.
        let rightParts =
            rect.width < 100
            ? [] : [model.profile.map { "profile \($0)" }, mode.isEmpty ? nil : mode].compactMap { $0 }
        let info = rightParts.map { " \($0) │" }.joined()
        let rightWidth = TextWidth.columns(of: info) + TextWidth.columns(of: queueText)
        let url = model.target.url.isEmpty ? "no target URL (t sets one)" : Secrets.displayURL(model.target.url)
        let images = model.target.images.map { " · images " + imageSummary($0) } ?? ""
        let expects = model.target.expectations.map { " · expect " + $0.text }.joined()
        // A long URL (a query, a presigned one) gives way before what is said after it.
        let method = "│ \(target.howSent) "
        let details = " · \(body)\(expects)\(images) "
        let room = max(0, rect.maxX - x - rightWidth - 1)
        let urlRoom = room - TextWidth.columns(of: method) - TextWidth.columns(of: details)
        let shownURL = urlRoom >= 16 ? TextWidth.truncate(url, toColumns: urlRoom) : url
        grid.put(method + shownURL + details, x: x, y: rect.y, style: bar, maxWidth: room, clip: rect)
        if rect.width - (x - rect.x) > rightWidth + 10 {
            let queueStyle = queue.isPaused ? Style(foreground: .yellow, reverse: true).bolded : bar.bolded
            let start = rect.maxX - rightWidth
            let used = grid.put(info, x: start, y: rect.y, style: bar, clip: rect)
            grid.put(queueText, x: start + used, y: rect.y, style: queueStyle, clip: rect)
        }
    }

    /// `≤1600 px q60 jpeg`: what `I` set, short enough for the top bar.
    static func imageSummary(_ settings: ImageSettings, withDimension: Bool = true) -> String {
        var words: [String] = []
        if withDimension, let dimension = settings.maxDimension { words.append("≤\(dimension) px") }
        if let quality = settings.quality { words.append("q\(quality)") }
        if let bytes = settings.maxBytes { words.append("≤" + Format.bytes(bytes)) }
        if settings.format == .jpeg { words.append("jpeg") }
        return words.joined(separator: " ")
    }

    static func bottom(_ model: AppModel, into grid: inout Grid, in rect: Rect) {
        grid.fill(rect)
        if let notice = model.notice {
            let style = notice.isError ? Style.fg(.red).bolded : Style.fg(.green)
            grid.put((notice.isError ? " ✘ " : " ✔ ") + notice.text, x: rect.x, y: rect.y, style: style, clip: rect)
            return
        }
        var hints = hints(model)
        var end = rect.maxX
        // `? help` always stays, at the right end when the others do not all fit.
        if let help = hints.firstIndex(where: { $0.0 == "?" }) {
            let all = hints.reduce(1) { $0 + TextWidth.columns(of: $1.0) + TextWidth.columns(of: $1.1) + 3 }
            if all > rect.width {
                hints.remove(at: help)
                end -= 8
                grid.put("?", x: end, y: rect.y, style: Style.fg(.cyan).bolded)
                grid.put(" help", x: end + 1, y: rect.y, style: Style.plain.dimmed)
            }
        }
        var x = rect.x + 1
        for (key, action) in hints {
            let width = TextWidth.columns(of: key) + TextWidth.columns(of: action) + 3
            guard x + width <= end else { break }
            x += grid.put(key, x: x, y: rect.y, style: Style.fg(.cyan).bolded)
            x += grid.put(" " + action + "  ", x: x, y: rect.y, style: Style.plain.dimmed)
        }
    }

    /// The keys that matter where the user is, most useful first.
    static func hints(_ model: AppModel) -> [(String, String)] {
        switch model.overlay {
        case .help: return [("any key", "close"), ("↑↓", "scroll")]
        case .confirmQuit:
            return [("y", model.journaled ? "quit; resume them next time" : "quit and cancel uploads"), ("n", "stay")]
        case .editor: return [("Enter", "save"), ("Esc", "cancel"), ("Tab", "next"), ("←→", "choose")]
        case .browser(let browser):
            if browser.isEditingGlob { return [("Enter", "apply filter"), ("Esc", "done")] }
            return [
                ("Enter", "open/stage"), ("Space", "mark file or folder"), ("*", "mark files"), ("a", "stage marked"),
                ("/", "glob"),
                (".", "hidden"), ("⌫", "up"), ("Esc", "close"),
            ]
        case .history(let history):
            if history.filterInput != nil { return [("Enter", "keep filter"), ("Esc", "clear filter")] }
            return [("Enter", "stage again"), ("/", "filter"), ("↑↓", "move"), ("g/G", "first/last"), ("Esc", "close")]
        case .restage: return [("r", "replace"), ("a", "add, marked"), ("Esc", "cancel")]
        case .value: return [("↑↓", "scroll"), ("any key", "close")]
        case .profiles: return [("Enter", "load profile"), ("↑↓", "move"), ("Esc", "close")]
        case nil: break
        }
        if model.filterInput != nil { return [("Enter", "keep filter"), ("Esc", "clear filter")] }
        if model.response.searchInput != nil { return [("Enter", "keep search: n N"), ("Esc", "clear search")] }
        let common = [
            ("u", "upload"), ("U", "each"), ("p", model.queue.isPaused ? "resume" : "pause"), ("+/-", "slots"),
            ("t", "target"), ("Tab", "pane"), ("?", "help"), ("q", "quit"),
        ]
        switch model.focus {
        case .files:
            let discard = model.restoredFiles.isEmpty ? [] : [("X", "discard restored")]
            return discard + [("a", "add"), ("Space", "mark"), ("e", "edit"), ("d", "delete"), ("o", "mode")] + common
        case .fields:
            return [
                ("f", "field"), ("H", "header"), ("e", "edit"), ("d", "delete"), ("s", "secret"), ("O", "profiles"),
                ("S", "save profile"),
            ] + common
        case .tasks:
            let resume = model.tasks.totals.interrupted > 0 ? [("R", "resume all")] : []
            return resume + [
                ("c", "cancel"), ("r", "retry"), ("d", "remove"), ("Space", "mark"), ("C/A/D", "all"),
                ("K/J", "move"), ("/", "filter"), ("L", "history"),
            ] + common
        case .response:
            return [
                ("↑↓", "move"), ("/", "search"), ("←→", "fold"), ("<>", "scroll"), ("Enter", "toggle"), ("v", "whole"),
                ("E/C", "all"),
                ("i", "headers"),
                ("x", "request"), ("w", "raw"),
                ("P", "pretty"), ("s", "secrets"),
            ] + common
        }
    }
}
