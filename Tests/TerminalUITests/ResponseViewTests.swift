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

    @Test func invalidJSONShowsTheTextAndTheError() {
        let task = F.task(
            body: "{\"a\": 1,\n oops",
            content: .invalidJSON(text: "{\"a\": 1,\n oops", error: "unexpected character at byte 10"))
        let grid = F.render(task, height: 5)
        #expect(
            F.text(grid) == [
                "HTTP 200 OK · 12 ms · 14 B · application/json",
                "invalid JSON: unexpected character at byte 10",
                "{\"a\": 1,",
                " oops",
                "",
            ])
        #expect(grid[0, 1].style.dim)
        #expect(!grid[0, 2].style.dim)
    }

    @Test func textBinaryAndEmptyBodies() {
        let text = F.task(body: "first\r\n\tsecond\u{7}\nthird\n", headers: [HeaderField("Content-Type", "text/plain")])
        #expect(
            F.text(F.render(text, height: 5)) == [
                "HTTP 200 OK · 12 ms · 22 B · text/plain", "first", "    second\u{FFFD}", "third", "",
            ])
        let binary = F.task(body: "xx", headers: [], content: .binary(summary: "2 bytes of image/png"))
        #expect(F.text(F.render(binary, height: 2)) == ["HTTP 200 OK · 12 ms · 2 B", "(2 bytes of image/png)"])
        let empty = F.task(body: "", status: 204, headers: [])
        let grid = F.render(empty, height: 3)
        #expect(F.text(grid) == ["HTTP 204 No Content · 12 ms · 0 B", "(empty body)", ""])
        #expect(grid[0, 1].style.dim)
    }

    @Test func truncatedBodySaysWhere() {
        let task = F.task(body: "partial text", headers: [], received: 9_000_000)
        let grid = F.render(task, width: 70, height: 2)
        #expect(F.text(grid)[0] == "HTTP 200 OK · 12 ms · 8.58 MiB (truncated at 12 B)")
        #expect(F.style(of: "(truncated", row: 0, in: grid) == Style.fg(.yellow))
    }

    @Test func statusColours() {
        for (status, colour) in [
            (200, Color.green), (201, .green), (302, .yellow), (404, .red), (503, .red), (101, .default),
        ] {
            let grid = F.render(F.task(body: "", status: status, headers: []), height: 2)
            #expect(grid[0, 0].style == Style(foreground: colour, bold: true), "status \(status)")
            #expect(grid[0, 0].text == "H")
        }
        #expect(
            F.text(F.render(F.task(body: "", status: 299, headers: []), height: 2)) == [
                "HTTP 299 · 12 ms · 0 B", "(empty body)",
            ])
    }

    @Test func expectationFailureBannerShowsTheServerMessage() {
        let body = #"{"RETCODE":"1001","RETMSG":"身份证号码格式错误"}"#
        let failure = UploadFailure.expectationFailed(
            path: "RETCODE", expected: "0000", actual: "1001", message: "身份证号码格式错误", reason: nil)
        let grid = F.render(F.task(body: body, state: .failed(failure)), height: 7)
        #expect(
            F.text(grid) == [
                "HTTP 200 OK · 12 ms · 57 B · application/json",
                "✘ 身份证号码格式错误",
                "  RETCODE = \"1001\", expected \"0000\"",
                "▾ $ 2 keys",
                "    RETCODE: \"1001\"",
                "    RETMSG: \"身份证号码格式错误\"",
                "",
            ])
        #expect(grid[0, 1].style == Style(foreground: .red, bold: true))
        #expect(grid[2, 1].style == Style(foreground: .red, bold: true))
        #expect(grid[2, 2].style == Style.fg(.red))

        let noMessage = UploadFailure.expectationFailed(
            path: "data.ok", expected: "true", actual: nil, message: nil, reason: nil)
        #expect(
            F.text(F.render(F.task(body: body, state: .failed(noMessage)), height: 8))[1]
                == "✘ data.ok missing, expected \"true\"")
        let notJSON = UploadFailure.expectationFailed(
            path: "RETCODE", expected: "0000", actual: nil, message: nil, reason: "the response is not JSON")
        #expect(
            F.text(F.render(F.task(body: "<html>", state: .failed(notJSON)), height: 8))[1]
                == "✘ RETCODE: expected \"0000\", but the response is not JSON")
    }

    @Test func httpStatusFailureBanner() {
        let failure = UploadFailure.httpStatus(500, message: "disk full")
        let grid = F.render(
            F.task(body: #"{"msg":"disk full"}"#, status: 500, state: .failed(failure)), width: 70, height: 4)
        #expect(
            F.text(grid) == [
                "HTTP 500 Internal Server Error · 12 ms · 19 B · application/json", "✘ disk full", "▾ $ 1 key",
                "    msg: \"disk full\"",
            ])
        #expect(grid[0, 0].style == Style(foreground: .red, bold: true))
        #expect(grid[2, 1].style == Style(foreground: .red, bold: true))
        let silent = F.render(
            F.task(body: "", status: 502, state: .failed(.httpStatus(502, message: nil)), headers: []), height: 2)
        #expect(F.text(silent) == ["HTTP 502 Bad Gateway · 12 ms · 0 B", "(empty body)"])
        let early = UploadFailure.answeredEarly(status: 200, sent: 10, total: 100)
        #expect(
            F.text(F.render(F.task(body: "", state: .failed(early), headers: []), width: 120, height: 3))[1]
                == "✘ the server answered HTTP 200 after only 10 of 100 bytes were sent; it did not read the whole upload"
        )
    }

    @Test func noResponseYet() {
        #expect(F.text(F.render(F.pending(.queued), height: 1)) == ["no response yet (queued)"])
        #expect(F.text(F.render(F.pending(.sending), height: 1)) == ["no response yet (sending)"])
        #expect(F.text(F.render(F.pending(.awaitingResponse), height: 1)) == ["no response yet (awaiting response)"])
        #expect(
            F.text(F.render(F.pending(.waitingForDependency(TaskID(7))), height: 1)) == [
                "no response yet (waiting for #7)"
            ])
        #expect(
            F.text(F.render(F.pending(.cancelled(reason: "front.jpg (task #1) failed: HTTP 500")), height: 3)) == [
                "no response: cancelled", "  front.jpg (task #1) failed", "  HTTP 500",
            ], "one clause a line")
        #expect(F.text(F.render(nil, height: 1)) == ["no task selected"])
        let grid = F.render(F.pending(.queued), height: 1)
        #expect(grid[0, 0].style.dim)
        let failed = F.render(F.pending(.failed(.connectionFailed("connection refused"))), height: 2)
        #expect(F.text(failed) == ["✘ cannot connect: connection refused", ""])
        #expect(failed[2, 0].style.foreground == .red)
    }

    @Test func cjkIsCutByColumnsAtNarrowWidths() {
        let body = #"{"姓名":"张三丰张三丰张三丰张三丰","备注信息":{"原因":"身份证号码格式错误，请重新上传"}}"#
        let grid = F.render(F.task(body: body), width: 30, height: 6)
        #expect(
            F.text(grid) == [
                "HTTP 200 OK · 12 ms · 123 B ·…",
                "▾ $ 2 keys",
                "    姓名: \"张三丰张三丰张三丰…",
                "  ▾ 备注信息 1 key",
                "      原因: \"身份证号码格式错…",
                "",
            ])
        for y in 0..<grid.height {
            for x in 0..<grid.width where grid[x, y].isContinuation {
                #expect(x > 0 && grid[x - 1, y].width == 2, "no orphan half of a wide character at \(x),\(y)")
            }
        }
        // An odd column left before a wide character stays blank rather than splitting it.
        let odd = F.render(F.task(body: body), width: 29, height: 6)
        #expect(odd.line(2) == "    姓名: \"张三丰张三丰张三… ")
        #expect(F.text(F.render(F.task(body: body), width: 28, height: 6))[2] == "    姓名: \"张三丰张三丰张三…")
    }

    @Test func spanCutExactlyAtABoundaryStillEndsInAnEllipsis() {
        var grid = Grid(size: Size(width: 6, height: 1))
        ResponseView.draw([.init("abcde"), .init("fg")], into: &grid, x: 0, y: 0, width: 6, clip: grid.bounds)
        #expect(grid.line(0) == "abcde…")
        var wide = Grid(size: Size(width: 6, height: 1))
        ResponseView.draw([.init("ab"), .init("身份证")], into: &wide, x: 0, y: 0, width: 6, clip: wide.bounds)
        #expect(wide.line(0) == "ab身… ")
    }
}

@Suite struct ResponseViewStateTests {
    typealias F = ResponseViewFixtures

    @Test func longLinesScrollSideways() {
        let body = #"{"id":""# + (0..<30).map { String(format: "%03d", $0) }.joined(separator: "-") + #""}"#
        let task = F.task(body: body)
        var state = ResponseViewState(mode: .raw, pretty: false)
        func document() -> ResponseDocument { ResponseDocument(task: task, state: state) }
        func press(_ key: Key) { state.handle(key, document: document(), viewHeight: 6) }
        func bodyRow() -> String { F.text(F.render(task, state, width: 40, height: 6))[1] }
        #expect(bodyRow() == #"{"id":"000-001-002-003-004-005-006-007-…"#)
        press(.right)
        #expect(state.column == ResponseViewState.columnStep)
        #expect(bodyRow() == "…3-004-005-006-007-008-009-010-011-012-…", "raw mode: → scrolls, … on both sides")
        #expect(F.text(F.render(task, state, width: 40, height: 6))[5].hasSuffix("⇥21"), "where the view starts")
        for _ in 0..<20 { press(.character(">")) }
        #expect(state.column == body.count - 2, "no further than the widest line's last column")
        #expect(bodyRow() == "…}")
        press(.character("0"))
        #expect(state.column == 0 && bodyRow().hasPrefix(#"{"id""#))
        press(.left)
        #expect(state.column == 0, "not before the first column")

        // Tree mode: ← → still fold, < > scroll, and a wide character cut in half leaves a blank.
        var tree = ResponseViewState()
        let wide = F.task(body: #"{"名":""# + String(repeating: "身份证", count: 20) + #""}"#)
        tree.handle(.character(">"), document: ResponseDocument(task: wide, state: tree), viewHeight: 6)
        tree.handle(.character("<"), document: ResponseDocument(task: wide, state: tree), viewHeight: 6)
        #expect(tree.column == 0)
        tree.column = 13
        #expect(F.text(F.render(wide, tree, width: 20, height: 6))[2] == "… 身份证身份证身份…")
        tree.handle(.down, document: ResponseDocument(task: wide, state: tree), viewHeight: 6)
        tree.handle(.left, document: ResponseDocument(task: wide, state: tree), viewHeight: 6)
        #expect(tree.column == 13, "← in the tree moves to the parent, it does not scroll")
    }

    @Test func cursorMovesAndToggles() {
        var state = ResponseViewState()
        var document = ResponseDocument(task: F.task(), state: state)
        state.moveCursor(by: 4, lineCount: document.lines.count, viewHeight: 14)
        #expect(state.cursor == 4)
        #expect(document.lines[state.cursor].path == "$.data")
        state.toggle(in: document, viewHeight: 14)
        #expect(state.collapsed == ["$.data"])
        #expect(state.cursor == 4)
        document = ResponseDocument(task: F.task(), state: state)
        #expect(document.lines.count == 5)
        #expect(document.lines[4].text == "  ▸ data {…} 5 keys")
        state.toggle(in: document, viewHeight: 14)
        #expect(state.collapsed.isEmpty)
        document = ResponseDocument(task: F.task(), state: state)
        #expect(document.lines.count == 12)

        // Toggling a leaf does nothing.
        state.moveCursor(by: 2, lineCount: document.lines.count, viewHeight: 14)
        #expect(document.lines[state.cursor].path == "$.data.size")
        state.toggle(in: document, viewHeight: 14)
        #expect(state.collapsed.isEmpty && state.cursor == 6)

        // The cursor stays inside the document.
        state.moveCursor(by: 100, lineCount: document.lines.count, viewHeight: 14)
        #expect(state.cursor == 11)
        state.moveCursor(by: -100, lineCount: document.lines.count, viewHeight: 14)
        #expect(state.cursor == 0)
    }

    @Test func collapseAndExpandLikeAFileTree() {
        var state = ResponseViewState(cursor: 8)  // $.data.tags[0]
        var document = ResponseDocument(task: F.task(), state: state)
        state.collapse(in: document, viewHeight: 14)
        #expect(state.cursor == 7, "← on a leaf goes to its parent")
        #expect(state.collapsed.isEmpty)
        state.collapse(in: document, viewHeight: 14)
        #expect(state.collapsed == ["$.data.tags"], "← on an expanded container collapses it")
        document = ResponseDocument(task: F.task(), state: state)
        state.collapse(in: document, viewHeight: 14)
        #expect(state.cursor == 4, "← on a collapsed container goes to its parent")
        state.expand(in: document, viewHeight: 14)
        #expect(state.cursor == 5, "→ on an expanded container goes to its first child")
        state.cursor = 7
        state.expand(in: document, viewHeight: 14)
        #expect(state.collapsed.isEmpty, "→ on a collapsed container expands it")
        #expect(state.cursor == 7)
    }

    @Test func keysDriveTheState() {
        var state = ResponseViewState()
        func press(_ key: Key) {
            let document = ResponseDocument(task: F.task(), state: state)
            let handled = state.handle(key, document: document, viewHeight: 14)
            #expect(handled, "\(key)")
        }
        press(.down)
        press(.character("j"))
        press(.character("j"))
        press(.down)
        #expect(state.cursor == 4)
        press(.enter)
        #expect(state.collapsed == ["$.data"])
        press(.right)
        #expect(state.collapsed.isEmpty)
        press(.character("C"))
        #expect(state.collapsed == ["$.data", "$.data.tags"])
        press(.character("E"))
        #expect(state.collapsed.isEmpty)
        press(.character("i"))
        #expect(state.showHeaders)
        press(.character("w"))
        #expect(state.mode == .raw)
        press(.character("P"))
        #expect(!state.pretty)
        press(.character("G"))
        #expect(state.cursor == ResponseDocument(task: F.task(), state: state).lines.count - 1)
        press(.home)
        #expect(state.cursor == 0)
        press(.up)
        #expect(state.cursor == 0)
        let handled = state.handle(
            .character("q"), document: ResponseDocument(task: F.task(), state: state), viewHeight: 14)
        #expect(!handled)
    }

    @Test func expandAllAndCollapseAll() {
        var state = ResponseViewState(cursor: 9)  // $.data.tags[1]
        state.collapseAll(in: ResponseDocument(task: F.task(), state: state), viewHeight: 14)
        #expect(state.collapsed == ["$.data", "$.data.tags"])
        #expect(state.cursor == 4, "the cursor moves to the nearest visible ancestor")
        #expect(
            F.text(F.render(F.task(), state)).prefix(6) == [
                "HTTP 200 OK · 12 ms · 115 B · application/json",
                "▾ $ 3 keys",
                "    RETCODE: \"0000\"",
                "    RETMSG: \"成功\"",
                "  ▸ data {…} 5 keys",
                "",
            ])
        state.toggle(in: ResponseDocument(task: F.task(), state: state), viewHeight: 14)
        #expect(F.text(F.render(F.task(), state))[7] == "    ▸ tags […] 2 items", "children stay collapsed")
        state.expandAll(in: ResponseDocument(task: F.task(), state: state), viewHeight: 14)
        #expect(state.collapsed.isEmpty)
        #expect(state.cursor == 4)
        #expect(F.text(F.render(F.task(), state)) == F.expanded + ["", ""])
    }

    @Test func scrollKeepsTheCursorVisible() {
        let count = 100
        var state = ResponseViewState()
        state.moveCursor(by: 12, lineCount: count, viewHeight: 10)
        #expect(state.cursor == 12 && state.scroll == 3)
        state.moveCursor(by: -5, lineCount: count, viewHeight: 10)
        #expect(state.cursor == 7 && state.scroll == 3, "moving inside the view does not scroll")
        state.pageDown(lineCount: count, viewHeight: 10)
        #expect(state.cursor == 16 && state.scroll == 12)
        state.pageUp(lineCount: count, viewHeight: 10)
        #expect(state.cursor == 7 && state.scroll == 3)
        state.pageUp(lineCount: count, viewHeight: 10)
        #expect(state.cursor == 0 && state.scroll == 0)
        state.moveToBottom(lineCount: count, viewHeight: 10)
        #expect(state.cursor == 99 && state.scroll == 90)
        state.pageDown(lineCount: count, viewHeight: 10)
        #expect(state.cursor == 99 && state.scroll == 90)
        state.select(row: 4, lineCount: count, viewHeight: 10)
        #expect(state.cursor == 94 && state.scroll == 90, "a click selects the line shown at that row")
        state.select(row: 20, lineCount: count, viewHeight: 10)
        #expect(state.cursor == 94, "a click below the view does nothing")
        // A stale state (the document shrank) is clamped when drawn and on the next move.
        #expect(state.window(lineCount: 5, viewHeight: 10) == (4, 0))
    }
}

@Suite struct ResponseViewRenderTests {
    typealias F = ResponseViewFixtures

    static let bigBody =
        "[" + (0..<10_000).map { #"{"id":\#($0),"name":"file-\#($0).jpg"}"# }.joined(separator: ",") + "]"

    @Test func cursorIsHighlightedOnlyWhenFocused() {
        let state = ResponseViewState(cursor: 2)
        let focused = F.render(F.task(), state, focused: true)
        #expect((0..<60).allSatisfy { focused[$0, 2].style.background == .blue })
        #expect(focused[0, 1].style.background == .default && focused[0, 3].style.background == .default)
        #expect(focused[4, 2].style.bold, "the key keeps its weight")
        let unfocused = F.render(F.task(), state, focused: false)
        #expect(!(0..<60).contains { x in (0..<14).contains { unfocused[x, $0].style.background == .blue } })
        #expect(F.text(focused) == F.text(unfocused))
    }

    @Test func tenThousandItemsDrawOnlyTheView() throws {
        let task = F.task(body: Self.bigBody)
        var document = ResponseDocument(task: task, state: ResponseViewState())
        #expect(document.lines.count == 2 + 10_000 * 3)

        var grid = Grid(size: Size(width: 40, height: 8))
        ResponseView.render(
            document, state: ResponseViewState(), into: &grid, in: Rect(x: 0, y: 1, width: 40, height: 6), focused: true
        )
        #expect(
            F.text(grid) == [
                "",
                "HTTP 200 OK · 12 ms · 340 KiB · applica…",
                "▾ $ 10000 items",
                "  ▾ 0 2 keys",
                "      id: 0",
                "      name: \"file-0.jpg\"",
                "  ▾ 1 2 keys                     1/30002",
                "",
            ])
        #expect(grid[33, 6].style == ResponseView.indicatorStyle)
        #expect(grid[0, 1].style.background == .blue, "the cursor starts on the status line")

        var state = ResponseViewState()
        state.moveToBottom(lineCount: document.lines.count, viewHeight: 6)
        grid = Grid(size: Size(width: 40, height: 6))
        ResponseView.render(document, state: state, into: &grid, in: grid.bounds, focused: true)
        #expect(
            F.text(grid) == [
                "  ▾ 9998 2 keys",
                "      id: 9998",
                "      name: \"file-9998.jpg\"",
                "  ▾ 9999 2 keys",
                "      id: 9999",
                "      name: \"file-9999.jpg\"  30002/30002",
            ])
        #expect(
            (0..<40).allSatisfy { grid[$0, 5].style.background == .blue || $0 >= 28 }, "the last line is the cursor")
        #expect(F.text(grid).last?.hasSuffix("30002/30002") == true)

        // The plain case: 10,000 scalars.
        let strings = F.task(body: "[" + (0..<10_000).map { #""file-\#($0).jpg""# }.joined(separator: ",") + "]")
        document = ResponseDocument(task: strings, state: ResponseViewState())
        #expect(document.lines.count == 10_002)

        // Collapsed, the array costs one line however long it is.
        let collapsed = ResponseDocument(task: task, state: ResponseViewState(collapsed: ["$"]))
        #expect(collapsed.lines.count == 2)
        #expect(collapsed.lines[1].text == "▸ $ […] 10000 items")
    }

    @Test func shortDocumentsHaveNoIndicator() {
        let grid = F.render(F.task(), width: 60, height: 12)
        #expect(!F.text(grid).joined().contains("/12"))
        #expect(F.text(grid) == F.expanded)
    }

    @Test func drawsOnlyInsideItsRectangle() {
        var grid = Grid(size: Size(width: 20, height: 4), fill: Cell("#"))
        let state = ResponseViewState()
        ResponseView.render(
            ResponseDocument(task: F.task(), state: state), state: state, into: &grid,
            in: Rect(x: 2, y: 1, width: 16, height: 2), focused: false)
        #expect(
            grid.lines() == [
                "####################",
                "##HTTP 200 OK · 1…##",
                "##▾ $ 3 keys  1/12##",
                "####################",
            ])
    }
}

/// An S3 multipart upload in the Response pane: where it stands, and each
/// part the server confirmed, by number, size and ETag.
@Suite struct ResponseViewS3PartsTests {
    @Test func confirmedPartsAreListedWithWhatIsLeft() {
        let mib: Int64 = 1 << 20
        var task = ResponseViewFixtures.pending(.sending)
        task.progress = UploadProgress(bytesSent: 16 * mib, totalBytes: 83 * mib)
        task.checkpoint = .s3(
            S3Checkpoint(
                uploadID: "2~UpLoAd", partSize: 8 * mib, length: 83 * mib,
                parts: [
                    S3Part(number: 1, etag: "\"0cc175b9c0f1b6a831c399e269772661\"", size: 8 * mib),
                    S3Part(number: 10, etag: "\"92eb5ffee6ae2fec3ad71c777531578f\"", size: 3 * mib),
                ], file: nil))
        let rows = ResponseViewFixtures.text(ResponseViewFixtures.render(task, width: 70, height: 10))
        #expect(rows.contains { $0.contains("S3 multipart upload 2~UpLoAd, 2 of 11 parts") }, "\(rows)")
        #expect(rows.contains { $0.contains("the server holds 11.0 MiB of 83.0 MiB") }, "\(rows)")
        #expect(rows.contains { $0.contains("part  1  8.00 MiB  \"0cc175b9c0f1b6a831c399e269772661\"") }, "\(rows)")
        #expect(rows.contains { $0.contains("part 10  3.00 MiB  \"92eb5ffee6ae2fec3ad71c777531578f\"") }, "\(rows)")
        #expect(rows.contains { $0.contains("9 parts to go") }, "\(rows)")

        // Standard input: its length is known at its end, so nothing counts against S3's 10,000.
        task.progress = UploadProgress(bytesSent: 16 * mib, totalBytes: nil)
        task.checkpoint = .s3(
            S3Checkpoint(
                uploadID: "2~StDiN", partSize: 8 * mib, length: 10_000 * 8 * mib,
                parts: [S3Part(number: 1, etag: "\"0cc175b9c0f1b6a831c399e269772661\"", size: 8 * mib)], file: nil))
        let stream = ResponseViewFixtures.text(ResponseViewFixtures.render(task, width: 70, height: 10))
        #expect(stream.contains { $0.contains("S3 multipart upload 2~StDiN, 1 part so far") }, "\(stream)")
        #expect(stream.contains { $0.hasSuffix("the server holds 8.00 MiB") }, "\(stream)")
        #expect(stream.contains { $0.contains("part 1  8.00 MiB") }, "\(stream)")
        #expect(stream.contains { $0.contains("more parts until standard input ends (at most 10,000)") }, "\(stream)")
        #expect(!stream.joined().contains("9999"), "\(stream)")
    }
}

/// A server that echoes what it was sent shows a secret field's value in
/// its answer: the live pane masks it as the history does, until `s`.
@Suite struct ResponseSecretTests {
    static let echo =
        #"{"fields":[{"name":"pin","value":"123456"},{"name":"user","value":"alice"}],"session_token":"tok-987","note":"pin 123456 accepted"}"#

    static func task() -> TaskSnapshot {
        let form = MultipartForm(parts: [.text("pin", "123456"), .text("user", "alice")])
        var task = ResponseViewFixtures.task(
            body: echo,
            headers: [
                HeaderField("Content-Type", "application/json"), HeaderField("Set-Cookie", "sid=cookie-555; HttpOnly"),
            ])
        task.request = UploadRequest(url: "http://x/upload", body: .multipart(form), label: "id.jpg")
        return task
    }

    static func text(_ state: ResponseViewState, secretNames: Set<String> = ["pin"]) -> String {
        ResponseDocument(task: task(), state: state, secretNames: secretNames).lines.map(\.text).joined(separator: "\n")
    }

    @Test func aMarkedFieldEchoedByTheServerIsMaskedInEveryView() {
        var state = ResponseViewState(showHeaders: true)
        for (mode, pretty) in [(ResponseViewState.Mode.tree, true), (.raw, true), (.raw, false)] {
            state.mode = mode
            state.pretty = pretty
            let shown = Self.text(state)
            #expect(!shown.contains("123456"), "\(mode) pretty=\(pretty): \(shown)")
            #expect(!shown.contains("tok-987"), "a secret-looking key's value")
            #expect(!shown.contains("cookie-555"), "Set-Cookie")
            #expect(shown.contains("alice"), "what is not secret stays")
            #expect(shown.contains("secrets masked · s shows them"))
        }
        // Not marked and not secret-looking: a pin shows as the server sent it.
        #expect(Self.text(ResponseViewState(), secretNames: []).contains("123456"))
    }

    /// A secret the answer does not hold is no reason for the note (the demo's answer said it before).
    @Test func noNoteWhenTheAnswerEchoesNoSecret() {
        var task = ResponseViewFixtures.task(body: #"{"RETCODE":"0000","RETMSG":"成功"}"#)
        task.request = UploadRequest(
            url: "http://x/upload", headers: [HeaderField("Authorization", "Bearer demo-0f8a2c")],
            body: .multipart(MultipartForm(parts: [.text("user_id", "42")])), label: "id.jpg")
        let text = ResponseDocument(task: task, state: ResponseViewState(), secretNames: ["Authorization"]).lines
            .map(\.text).joined(separator: "\n")
        #expect(!text.contains("secrets masked"), "\(text)")
        #expect(text.contains("RETMSG"))
    }

    @Test func sShowsTheSecretsAndMasksThemAgain() {
        var state = ResponseViewState()
        let document = ResponseDocument(task: Self.task(), state: state, secretNames: ["pin"])
        let handled = state.handle(.character("s"), document: document, viewHeight: 20)
        #expect(handled)
        let shown = Self.text(state)
        #expect(shown.contains("\"123456\"") && shown.contains("tok-987"))
        #expect(shown.contains("secrets shown · s masks them"))
        let revealed = ResponseDocument(task: Self.task(), state: state, secretNames: ["pin"])
        state.handle(.character("s"), document: revealed, viewHeight: 20)
        #expect(!Self.text(state).contains("123456"))
    }

    /// The model masks what the user marked with `s` in the Fields pane.
    @Test func theModelMasksTheFieldsMarkedSecret() {
        var model = Fixtures.model()
        model.entries = [FormEntry(kind: .field, name: "pin", value: "123456", isSecret: true)]
        let task = Self.task()
        model.tasks.apply(task)
        model.responseTask = task.id
        #expect(!model.responseDocument.lines.map(\.text).joined().contains("123456"))
        model.entries[0].isSecret = false
        #expect(model.responseDocument.lines.map(\.text).joined().contains("123456"))
    }
}
