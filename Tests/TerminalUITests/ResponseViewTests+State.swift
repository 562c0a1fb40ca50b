import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

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
