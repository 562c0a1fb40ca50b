import Testing
import UploadEngine

@testable import TerminalUI

/// `/` in the Response pane searches the answer, folded nodes too; n and N
/// go on (issue 37 #11: a 7,650-line answer had no search, and / jumped to
/// the Tasks filter).
@Suite struct ResponseSearchTests {
    /// An answer of 3,000 records, the one looked for deep inside.
    static func model() -> AppModel {
        let records = (0..<3000).map {
            #"{"id":\#($0),"name":"item \#($0)","owner":{"card":"\#($0 == 2718 ? "身份证 2718" : "x")"}}"#
        }
        let body = #"{"RETCODE":"0000","records":["# + records.joined(separator: ",") + "]}"
        var m = Fixtures.model(width: 100, height: 30)
        _ = m.update(
            .engine(.added(Fixtures.task(1, "card.jpg", state: .succeeded, response: Fixtures.jsonResponse(body)))))
        m.focus = .response
        return m
    }

    func screen(_ m: AppModel) -> [String] { Fixtures.render(m) }
    func cursorLine(_ m: AppModel) -> String {
        let document = m.responseDocument
        let at = m.response.window(lineCount: document.lines.count, viewHeight: 10).cursor
        return document.lines[at].spans.map(\.text).joined()
    }

    @Test func slashFindsInsideFoldedNodesAndNAndNGoOn() {
        var m = Self.model()
        _ = m.update(.key(.character("C")))  // every node folded
        #expect(!screen(m).joined().contains("2718"))
        _ = m.update(.key(.character("/")))
        #expect(m.focus == .response, "/ here searches, it does not open the Tasks filter")
        for c in "身份证" { _ = m.update(.key(.character(c))) }
        #expect(cursorLine(m).contains("card: \"身份证 2718\""), "\(cursorLine(m))")
        #expect(screen(m).contains { $0.contains("Response · card.jpg / 身份证▏ 1/1") }, "\(screen(m))")
        #expect(screen(m).contains { $0.contains("身份证 2718") }, "the match is on screen")
        #expect(!m.response.collapsed.contains("$.records[2718].owner") && !m.response.collapsed.contains("$.records"))
        #expect(m.response.collapsed.contains("$.records[0]"), "only the match's ancestors open")
        _ = m.update(.key(.enter))
        #expect(screen(m).contains { $0.contains("Response · card.jpg / 身份证 1/1") })

        // A word with many matches, from the top: n goes on, N back, both wrap.
        _ = m.update(.key(.character("g")))
        _ = m.update(.key(.character("/")))
        for c in "ITEM 299" { _ = m.update(.key(.character(c))) }
        _ = m.update(.key(.enter))
        let first = cursorLine(m)
        #expect(first.contains("\"item 299\""), "\(first)")
        #expect(screen(m).contains { $0.contains("/ ITEM 299 1/11") }, "item 299 and 2990-2999: \(screen(m))")
        _ = m.update(.key(.character("n")))
        #expect(cursorLine(m).contains("\"item 2990\""))
        _ = m.update(.key(.character("N")))
        _ = m.update(.key(.character("N")))
        #expect(cursorLine(m).contains("\"item 2999\""), "back past the first wraps to the last")
        #expect(screen(m).contains { $0.contains("/ ITEM 299 11/11") })

        _ = m.update(.key(.character("/")))
        for c in "zzz" { _ = m.update(.key(.character(c))) }
        #expect(screen(m).contains { $0.contains("/ zzz▏ no match") })
        _ = m.update(.key(.escape))
        #expect(m.response.search.isEmpty && m.response.searchInput == nil)
        #expect(screen(m).contains { $0.contains("Response · card.jpg") && !$0.contains("/ ") })
        _ = m.update(.key(.character("n")))
        #expect(m.notice?.text.contains("/ searches the answer") == true)
    }
}
