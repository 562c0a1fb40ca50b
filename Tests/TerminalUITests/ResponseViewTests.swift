import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// Fixtures and helpers for the Response pane tests.
enum ResponseViewFixtures {
    static let body =
        #"{"RETCODE":"0000","RETMSG":"成功","data":{"sha256":"ab12cd34","size":123,"tags":["x","y"],"ok":true,"none":null}}"#

    static let jsonHeaders = [
        HeaderField("Content-Type", "application/json; charset=utf-8"), HeaderField("X-Request-Id", "42"),
    ]

    static func task(
        body: String = body, status: Int = 200, state: TaskState = .succeeded, headers: [HeaderField] = jsonHeaders,
        content: UploadResponse.Content? = nil, received: Int64? = nil
    ) -> TaskSnapshot {
        let bytes = Array(body.utf8)
        let decoded: UploadResponse.Content
        if let content {
            decoded = content
        } else if bytes.isEmpty {
            decoded = .empty
        } else if let json = try? JSONParser.parse(bytes) {
            decoded = .json(json)
        } else {
            decoded = .text(body)
        }
        return TaskSnapshot(
            id: TaskID(1), request: UploadRequest(url: "http://x/upload", body: .json([]), label: "id.jpg"),
            state: state,
            attempts: 1,
            response: UploadResponse(
                status: status, headers: headers, elapsed: .milliseconds(12), body: bytes,
                bodyBytesReceived: received ?? Int64(bytes.count), content: decoded))
    }

    static func pending(_ state: TaskState) -> TaskSnapshot {
        TaskSnapshot(id: TaskID(2), request: UploadRequest(url: "http://x/", body: .json([])), state: state)
    }

    static func render(
        _ task: TaskSnapshot?, _ state: ResponseViewState = ResponseViewState(), width: Int = 60, height: Int = 14,
        focused: Bool = false
    ) -> Grid {
        var grid = Grid(size: Size(width: width, height: height))
        ResponseView.render(
            ResponseDocument(task: task, state: state), state: state, into: &grid, in: grid.bounds, focused: focused)
        return grid
    }

    /// The grid's rows with trailing spaces removed, after checking each is exactly the grid's width.
    static func text(_ grid: Grid) -> [String] {
        grid.lines().map { line in
            #expect(TextWidth.columns(of: line) == grid.width, "every row is exactly the grid's width: \(line)")
            return Fixtures.trimmed(line)
        }
    }

    /// The style of the first cell of `text` in row `y`.
    static func style(of text: String, row y: Int, in grid: Grid) -> Style? {
        let line = grid.line(y)
        guard let range = line.range(of: text) else { return nil }
        return grid[TextWidth.columns(of: line[..<range.lowerBound]), y].style
    }

    static let expanded = [
        "HTTP 200 OK · 12 ms · 115 B · application/json",
        "▾ $ 3 keys",
        "    RETCODE: \"0000\"",
        "    RETMSG: \"成功\"",
        "  ▾ data 5 keys",
        "      sha256: \"ab12cd34\"",
        "      size: 123",
        "    ▾ tags 2 items",
        "        0: \"x\"",
        "        1: \"y\"",
        "      ok: true",
        "      none: null",
    ]
}

@Suite struct ResponseViewDocumentTests {
    typealias F = ResponseViewFixtures

    @Test func fullyExpandedTreeWithColours() {
        let grid = F.render(F.task())
        #expect(F.text(grid) == F.expanded + ["", ""])
        #expect(F.style(of: "HTTP 200 OK", row: 0, in: grid) == Style(foreground: .green, bold: true))
        #expect(F.style(of: "RETCODE", row: 2, in: grid) == Style(foreground: .blue, bold: true))
        #expect(F.style(of: "\"0000\"", row: 2, in: grid) == Style.fg(.green))
        #expect(F.style(of: "123", row: 6, in: grid) == Style.fg(.magenta))
        #expect(F.style(of: "true", row: 10, in: grid) == Style.fg(.yellow))
        #expect(F.style(of: "null", row: 11, in: grid) == Style.plain.dimmed)
        #expect(F.style(of: "▾", row: 4, in: grid) == Style.fg(.cyan))
        #expect(F.style(of: "5 keys", row: 4, in: grid)?.dim == true)
    }

    @Test func linesCarryPathsAndParents() {
        let document = ResponseDocument(task: F.task(), state: ResponseViewState())
        #expect(document.bodyStart == 1)
        #expect(
            document.lines.map(\.path) == [
                nil, "$", "$.RETCODE", "$.RETMSG", "$.data", "$.data.sha256", "$.data.size", "$.data.tags",
                "$.data.tags[0]", "$.data.tags[1]", "$.data.ok", "$.data.none",
            ])
        #expect(
            document.lines.map(\.isContainer) == [
                false, true, false, false, true, false, false, true, false, false, false, false,
            ])
        #expect(document.lines[8].parent == 7)
        #expect(document.lines[7].parent == 4)
        #expect(document.lines[1].parent == nil)
        #expect(document.index(ofPath: "$.data.tags") == 7)
    }

    @Test func keysThatAreNotPlainUseBrackets() {
        let document = ResponseDocument(
            task: F.task(body: #"{"a.b":{"c":[{"":1}]},"1x":2,"身份":3}"#), state: ResponseViewState())
        #expect(
            document.lines.compactMap(\.path) == [
                "$", #"$["a.b"]"#, #"$["a.b"].c"#, #"$["a.b"].c[0]"#, #"$["a.b"].c[0][""]"#, #"$["1x"]"#, "$.身份",
            ])
        #expect(document.lines[5].text == #"          "": 1"#)
    }

    @Test func collapsingDataShowsASummary() {
        let state = ResponseViewState(collapsed: ["$.data"])
        #expect(
            F.text(F.render(F.task(), state)).prefix(6) == [
                "HTTP 200 OK · 12 ms · 115 B · application/json",
                "▾ $ 3 keys",
                "    RETCODE: \"0000\"",
                "    RETMSG: \"成功\"",
                "  ▸ data {…} 5 keys",
                "",
            ])
        let arrays = ResponseViewState(collapsed: ["$.data.tags"])
        #expect(F.text(F.render(F.task(), arrays))[7] == "    ▸ tags […] 2 items")
        let root = ResponseViewState(collapsed: ["$"])
        #expect(
            F.text(F.render(F.task(), root)).prefix(3) == [
                "HTTP 200 OK · 12 ms · 115 B · application/json", "▸ $ {…} 3 keys", "",
            ])
    }

    @Test func emptyContainersAndScalarRoots() {
        let document = ResponseDocument(task: F.task(body: #"{"a":{},"b":[],"c":[1]}"#), state: ResponseViewState())
        #expect(
            document.lines.map(\.text) == [
                "HTTP 200 OK · 12 ms · 23 B · application/json", "▾ $ 3 keys", "    a: {}", "    b: []", "  ▾ c 1 item",
                "      0: 1",
            ])
        #expect(document.lines[2].isContainer == false)
        let scalar = ResponseDocument(task: F.task(body: #""ok""#), state: ResponseViewState())
        #expect(scalar.lines.map(\.text).last == #"  "ok""#)
    }

    @Test func stringsAreEscapedAndBounded() {
        let long = String(repeating: "a", count: 5000)
        let document = ResponseDocument(
            task: F.task(body: #"{"k\ty":"line1\nline2\u0001","long":"\#(long)"}"#), state: ResponseViewState())
        #expect(document.lines[2].text == #"    k\ty: "line1\nline2\u0001""#)
        #expect(document.lines[3].text.count < 1100, "a long value is cut before it is drawn")
    }

    @Test func headersToggle() {
        var state = ResponseViewState()
        let document = ResponseDocument(task: F.task(), state: state)
        state.moveCursor(by: 4, lineCount: document.lines.count, viewHeight: 14)
        state.toggleHeaders(in: document, viewHeight: 14)
        #expect(state.showHeaders)
        let grid = F.render(F.task(), state)
        #expect(
            Array(F.text(grid).prefix(6)) == [
                "HTTP 200 OK · 12 ms · 115 B · application/json",
                "Content-Type: application/json; charset=utf-8",
                "X-Request-Id: 42",
                "",
                "▾ $ 3 keys",
                "    RETCODE: \"0000\"",
            ])
        #expect(grid[0, 1].style == Style.fg(.cyan))
        #expect(state.cursor == 7, "the cursor stays on $.data")
        #expect(ResponseDocument(task: F.task(), state: state).lines[state.cursor].path == "$.data")
        state.toggleHeaders(in: ResponseDocument(task: F.task(), state: state), viewHeight: 14)
        #expect(!state.showHeaders)
        #expect(state.cursor == 4)
        let none = ResponseDocument(task: F.task(headers: []), state: ResponseViewState(showHeaders: true))
        #expect(none.lines[1].text == "(no headers)")
    }

    @Test func rawPrettyAndAsReceived() {
        var state = ResponseViewState()
        state.toggleRaw(in: ResponseDocument(task: F.task(), state: state), viewHeight: 20)
        #expect(state.mode == .raw && state.pretty)
        let pretty = F.render(F.task(), state, height: 16)
        #expect(
            F.text(pretty) == [
                "HTTP 200 OK · 12 ms · 115 B · application/json",
                "{",
                "  \"RETCODE\": \"0000\",",
                "  \"RETMSG\": \"成功\",",
                "  \"data\": {",
                "    \"sha256\": \"ab12cd34\",",
                "    \"size\": 123,",
                "    \"tags\": [",
                "      \"x\",",
                "      \"y\"",
                "    ],",
                "    \"ok\": true,",
                "    \"none\": null",
                "  }",
                "}",
                "",
            ])
        #expect(F.style(of: "\"RETCODE\"", row: 2, in: pretty) == Style(foreground: .blue, bold: true))
        #expect(F.style(of: "\"0000\"", row: 2, in: pretty) == Style.fg(.green))

        state.togglePretty(in: ResponseDocument(task: F.task(), state: state), viewHeight: 20)
        #expect(!state.pretty)
        let received = #"{"RETCODE": "0000",  "RETMSG":"成功"}"#
        #expect(
            F.text(F.render(F.task(body: received), state, height: 3)) == [
                "HTTP 200 OK · 12 ms · 39 B · application/json",
                received,
                "",
            ])
        // As received, a long body is one line cut at the pane's edge.
        let compact = F.text(F.render(F.task(), state, width: 40, height: 2))
        #expect(compact[1] == #"{"RETCODE":"0000","RETMSG":"成功","data…"#)

        state.toggleRaw(in: ResponseDocument(task: F.task(), state: state), viewHeight: 20)
        #expect(state.mode == .tree)
    }
}
