import FormData
import FoundationEssentials
import UploadEngine

/// What the Response pane shows for a task, as styled lines: the status
/// line, a failure banner, the headers (when shown) and the body as a JSON
/// tree or as raw text. Pure: a snapshot and a view state in, lines out.
/// Collapsed subtrees are skipped, so a large document costs only what is
/// expanded.
public struct ResponseDocument: Sendable {
    /// A run of text in one style. Text never holds control characters.
    public struct Span: Sendable, Hashable {
        public var text: String
        public var style: Style

        public init(_ text: String, _ style: Style = .plain) {
            self.text = text
            self.style = style
        }
    }

    /// One line of the pane.
    public struct Line: Sendable, Hashable {
        public var spans: [Span]
        /// The JSON node on this line ("$", "$.data", "$.files[0]",
        /// `$["a.b"]`), for lines of the tree; nil for other lines.
        public var path: String?
        /// A non-empty object or array, which can be expanded and collapsed.
        public var isContainer: Bool
        /// A container whose children are hidden.
        public var isCollapsed: Bool
        /// The index of the line of the node that contains this one.
        public var parent: Int?

        public init(
            spans: [Span], path: String? = nil, isContainer: Bool = false, isCollapsed: Bool = false, parent: Int? = nil
        ) {
            self.spans = spans
            self.path = path
            self.isContainer = isContainer
            self.isCollapsed = isCollapsed
            self.parent = parent
        }

        /// The line as plain text.
        public var text: String { spans.map(\.text).joined() }
    }

    /// The task shown (kept so state changes can rebuild the document).
    public let task: TaskSnapshot?
    /// Fields the user marked secret, masked in the answer too (kept for rebuilds).
    public let secretNames: Set<String>
    public private(set) var lines: [Line] = []
    /// The index of the first body line; `lines.count` when there is no body.
    public private(set) var bodyStart = 0
    /// What is masked in this answer: the request's secrets the server
    /// echoed, and the values of secret keys; empty when `s` shows them.
    private var hidden: Set<String> = []
    private var marked: Set<String> = []

    public init(task: TaskSnapshot?, state: ResponseViewState, secretNames: Set<String> = []) {
        self.task = task
        self.secretNames = secretNames
        guard let task else {
            lines = [Self.note("no task selected")]
            bodyStart = lines.count
            return
        }
        lines = Self.transferLines(task)
        if state.showRequest { lines += Self.requestLines(task.request, secretNames: secretNames) }
        guard let response = task.response else {
            lines += Self.noResponse(task)
            bodyStart = lines.count
            return
        }
        marked = secretNames
        // Only the request's secrets the server echoed: the note below must not cry wolf.
        let body = String(decoding: response.body, as: UTF8.self)
        let echoed = Secrets.values(in: task.request, marked: marked).filter { secret in
            body.contains(secret) || response.headers.contains { $0.value.contains(secret) }
        }
        let hideable = Secrets.hiddenTexts(in: response.json, marked: marked, values: echoed)
        if !state.revealsSecrets { hidden = hideable }
        lines.append(Self.statusLine(response))
        if let failure = task.failure { lines += Self.banner(failure, hiding: hidden) }
        if !hideable.isEmpty {
            lines.append(
                Self.note(state.revealsSecrets ? "secrets shown · s masks them" : "secrets masked · s shows them"))
        }
        if state.showHeaders {
            lines += Self.headerLines(response.headers, masked: !state.revealsSecrets)
            lines.append(Line(spans: []))
        }
        bodyStart = lines.count
        appendBody(response, state: state)
    }

    /// The index of the line showing `path`, if it is visible.
    public func index(ofPath path: String) -> Int? {
        lines[bodyStart...].firstIndex { $0.path == path }
    }

    // MARK: - Sections

    static func note(_ text: String) -> Line {
        Line(spans: [Span(text, Style.plain.dimmed)])
    }

    /// The request as it went, secrets masked (`x`), then a blank line.
    static func requestLines(_ request: UploadRequest, secretNames: Set<String>) -> [Line] {
        RequestDescription.lines(for: request, secretFields: secretNames, secretHeaders: secretNames).map {
            Line(spans: [Span(ResponseText.displayable($0), Style.fg(.blue))])
        } + [Line(spans: [])]
    }

    /// A resumable transfer: where it lives on the server, where it went
    /// on from, and what its driver had to say.
    static func transferLines(_ task: TaskSnapshot) -> [Line] {
        var lines: [Line] = []
        if let checkpoint = task.checkpoint {
            // Standard input's length is known only at its end.
            let total = task.progress.totalBytes
            let held = Format.bytes(checkpoint.offset) + (total.map { " of " + Format.bytes($0) } ?? "")
            var summary = checkpoint.summary
            if let upload = checkpoint.s3, total == nil {
                summary =
                    "S3 multipart upload \(upload.uploadID), \(upload.parts.count) part\(upload.parts.count == 1 ? "" : "s") so far"
            }
            lines.append(note(ResponseText.displayable(summary)))
            lines.append(note("the server holds " + held))
            if let upload = checkpoint.s3 { lines += partLines(upload, lengthKnown: total != nil) }
        }
        if let from = task.resumedFrom { lines.append(note("resumed at " + Format.bytes(from) + ", not from 0")) }
        for image in task.preparedImages {
            let quality = image.quality.map { ", q\($0)" } ?? ""
            lines.append(
                note(
                    "prepared \(ResponseText.displayable(image.filename)): \(image.originalSize) "
                        + "\(Format.bytes(image.originalBytes)) → \(image.size) \(Format.bytes(image.bytes))\(quality)")
            )
        }
        if let text = task.note { lines.append(Line(spans: [Span(ResponseText.displayable(text), Style.fg(.yellow))])) }
        return lines
    }

    /// An S3 multipart upload's parts: number, size and ETag of each the
    /// server confirmed, then how many are still to go (a stream's parts go
    /// on until it ends: S3's 10,000 is a limit, not a count).
    static func partLines(_ upload: S3Checkpoint, lengthKnown: Bool = true) -> [Line] {
        let width = String(lengthKnown ? upload.partCount : upload.parts.last?.number ?? 1).count
        var lines = upload.parts.map { part in
            let number = String(repeating: " ", count: width - String(part.number).count) + String(part.number)
            let size = Format.bytes(part.size)
            return Line(spans: [
                Span("  part \(number)  ", Style.plain.dimmed),
                Span(size + String(repeating: " ", count: max(0, 10 - size.count)), Style.plain),
                Span(ResponseText.displayable(part.etag), Style.fg(.green)),
            ])
        }
        guard lengthKnown else {
            lines.append(note("  more parts until standard input ends (at most 10,000)"))
            return lines
        }
        let left = upload.partCount - upload.parts.count
        if left > 0 { lines.append(note("  \(left) part\(left == 1 ? "" : "s") to go")) }
        return lines
    }

    static func noResponse(_ task: TaskSnapshot) -> [Line] {
        switch task.state {
        case .failed(let failure):
            let lines = ResponseText.lines(failure.description)
            return lines.enumerated().map { index, text in
                Line(spans: [Span((index == 0 ? "✘ " : "  ") + text, Style.fg(.red))])
            }
        case .queued: return [note("no response yet (queued)")]
        case .waitingForDependency(let id): return [note("no response yet (waiting for \(id))")]
        case .sending: return [note("no response yet (sending)")]
        case .awaitingResponse: return [note("no response yet (awaiting response)")]
        case .waitingToRetry: return [note("no response yet (retry pending)")]
        case .succeeded: return [note("no response")]
        case .cancelled(let reason):
            // One clause a line: a chain's reason (which link failed, and why) is long for one row.
            let clauses = ResponseText.displayable(UploadFailure.cancelled(reason)).components(separatedBy: ": ")
            return [note("no response: " + clauses[0])] + clauses.dropFirst().map { note("  " + $0) }
        case .interrupted(nil):
            var lines = [note("interrupted: the hoist that queued it stopped before it finished")]
            if !task.request.isResumable {
                lines.append(note("one request carries it all, so it is sent again from byte 0 (tus goes on instead)"))
            }
            return lines + [note("R resumes every interrupted upload; c drops this one")]
        case .interrupted(let problem?):
            let lines = ResponseText.lines(problem).enumerated().map { index, text in
                Line(spans: [Span((index == 0 ? "! " : "  ") + text, index == 0 ? Style.fg(.red) : Style.plain.dimmed)])
            }
            return lines + [note("R leaves it alone; r sends the file as it is now, c drops it")]
        }
    }

    /// Green for 2xx, yellow for 3xx, red from 400; other statuses plain.
    static func statusStyle(_ status: Int) -> Style {
        switch status {
        case 200..<300: return Style.fg(.green).bolded
        case 300..<400: return Style.fg(.yellow).bolded
        case 400...: return Style.fg(.red).bolded
        default: return Style.plain.bolded
        }
    }

    /// `HTTP 200 OK · 12 ms · 1.21 KiB · application/json (truncated at 8.00 MiB)`
    static func statusLine(_ response: UploadResponse) -> Line {
        let reason = HTTPStatusText.reason(response.status)
        var spans = [
            Span("HTTP \(response.status)" + (reason.isEmpty ? "" : " " + reason), statusStyle(response.status))
        ]
        var details = [ResponseText.elapsed(response.elapsed), Format.bytes(response.bodyBytesReceived)]
        if let type = response.header("content-type")?.split(separator: ";").first {
            let trimmed = ResponseText.displayable(ResponseText.trimmed(type))
            if !trimmed.isEmpty { details.append(trimmed) }
        }
        spans.append(Span(details.map { " · " + $0 }.joined()))
        if response.isTruncated {
            spans.append(Span(" (truncated at \(Format.bytes(Int64(response.body.count))))", Style.fg(.yellow)))
        }
        return Line(spans: spans)
    }

    /// Why a task with a response failed, bold red; the server's own message
    /// (e.g. RETMSG) gets the first line to itself.
    static func banner(_ failure: UploadFailure, hiding hidden: Set<String> = []) -> [Line] {
        let strong = Style.fg(.red).bolded
        let detail: String?
        switch failure {
        case let .expectationFailed(path, expected, actual, _, reason):
            let want = ResponseText.quoted(expected)
            if let reason {
                detail = "\(path): expected \(want), but \(reason)"
            } else if let actual {
                detail = "\(path) = \(ResponseText.quoted(actual)), expected \(want)"
            } else {
                detail = "\(path) missing, expected \(want)"
            }
        case .httpStatus:
            // The status line already says it; only the server's message is news.
            detail = nil
        default:
            detail = failure.description
        }
        var lines: [Line] = []
        if let message = failure.serverMessage.map({ Secrets.masked($0, hiding: hidden) }), !message.isEmpty {
            for (index, text) in ResponseText.lines(message).enumerated() {
                lines.append(Line(spans: [Span((index == 0 ? "✘ " : "  ") + text, strong)]))
            }
            if let detail { lines.append(Line(spans: [Span("  " + ResponseText.displayable(detail), Style.fg(.red))])) }
        } else if let detail {
            lines.append(Line(spans: [Span("✘ " + ResponseText.displayable(detail), strong)]))
        }
        return lines
    }

    /// The answer's headers; `Set-Cookie` and other secret ones masked unless shown.
    static func headerLines(_ headers: [HeaderField], masked: Bool = true) -> [Line] {
        guard !headers.isEmpty else { return [note("(no headers)")] }
        return headers.map { field in
            let value = masked ? Secrets.displayValue(header: field.name, value: field.value) : field.value
            return Line(spans: [
                Span(ResponseText.displayable(field.name), Style.fg(.cyan)),
                Span(": " + ResponseText.displayable(value)),
            ])
        }
    }

    // MARK: - Body

    private mutating func appendBody(_ response: UploadResponse, state: ResponseViewState) {
        switch response.content {
        case .empty:
            lines.append(Self.note("(empty body)"))
        case .json(let received):
            let value = hidden.isEmpty ? received : Secrets.masked(received, marked: marked, values: hidden)
            switch state.mode {
            case .tree:
                var builder = JSONTreeBuilder(collapsed: state.collapsed, lines: lines)
                builder.add(value, label: .root, path: JSONNodePath.root, depth: 0, parent: nil)
                lines = builder.lines
            case .raw where state.pretty:
                var printer = JSONPrettyPrinter(lines: lines)
                printer.print(value)
                lines = printer.lines
            case .raw:
                appendText(String(decoding: response.body, as: UTF8.self))
            }
        case let .invalidJSON(text, error):
            lines.append(Self.note("invalid JSON: " + ResponseText.displayable(error)))
            appendText(text)
        case .text(let text):
            appendText(text)
        case .binary(let summary):
            lines.append(Self.note("(" + ResponseText.displayable(summary) + ")"))
        }
    }

    private mutating func appendText(_ text: String) {
        lines += ResponseText.lines(Secrets.masked(text, hiding: hidden)).map { Line(spans: [Span($0)]) }
    }
}
