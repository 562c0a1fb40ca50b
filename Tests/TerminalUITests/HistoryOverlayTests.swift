import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// `L` opens the history; Enter stages an earlier upload's files again.
@Suite struct HistoryOverlayTests {
    /// Two lines as `hoist send` writes them to history.jsonl.
    static let lines = [
        #"{"time":"2026-11-23T08:29:15Z","id":1,"name":"身份证 正面.jpg","url":"https://api.example.com/ocr","ok":true,"status":200,"bytes_sent":180392,"bytes_total":180392,"duration_ms":35,"attempts":1,"answered_early":false,"error":null,"message":null,"method":"PUT","files":[{"field":"image","path":"/data/身份证 正面.jpg","size":180006,"sha256":"ab"}],"response":{"RETCODE":"0000","token":"••••••"}}"#,
        #"{"time":"2026-11-23T08:30:02Z","id":2,"name":"back.jpg","url":"https://api.example.com/ocr","ok":false,"status":200,"bytes_sent":2048,"bytes_total":2048,"duration_ms":12,"attempts":1,"answered_early":false,"error":"expected RETCODE = \"0000\", got \"1001\"","message":"身份证号码格式错误","method":"POST","files":[{"field":"back","path":"/data/back.jpg","size":2000,"sha256":null}],"response":{"RETCODE":"1001","RETMSG":"身份证号码格式错误"}}"#,
    ]

    static func items() throws -> [HistoryItem] {
        try lines.map { try #require(HistoryItem(entry: try JSONParser.parse(Array($0.utf8)))) }
    }

    @Test func aHistoryLineIsRead() throws {
        let first = try Self.items()[0]
        #expect(first.ok && first.status == 200 && first.method == .put)
        #expect(first.files == [.init(field: "image", path: "/data/身份证 正面.jpg", size: 180006)])
        #expect(first.response?[path: "RETCODE"] == .string("0000"))
        let second = try Self.items()[1]
        #expect(!second.ok)
        #expect(second.problem == "身份证号码格式错误", "the server's message before the error")
        #expect(HistoryItem(entry: .object([])) == nil, "a line without time and url is not an item")
    }

    @Test func openingLoadsAndShowsTheNewestFirst() throws {
        var model = Fixtures.model(width: 100, height: 30)
        #expect(model.update(.key(.character("L"))) == [.loadHistory])
        #expect(Fixtures.render(model).contains { $0.contains("reading…") })
        _ = model.update(.historyLoaded(try Self.items(), error: nil))
        let screen = Fixtures.render(model)
        let rows = screen.filter { $0.contains("2026-11-23") }
        #expect(rows.count == 2)
        #expect(
            rows[0].contains("✘ 200 POST  back.jpg") && rows[0].contains("2.00 KiB    12 ms  2026-11-23 08:30:02"),
            "\(rows)")
        #expect(rows[1].contains("✔ 200 PUT   身份证 正面.jpg") && rows[1].contains(" 176 KiB    35 ms  "))
        // Columns line up: sizes and times end at the same column on every row.
        let timeColumn = rows.map { TextWidth.columns(of: String($0[..<$0.range(of: "2026")!.lowerBound])) }
        #expect(timeColumn[0] == timeColumn[1], "\(timeColumn)")
        #expect(Format.milliseconds(71191) == "1m12s" && Format.milliseconds(7250) == "7.2 s")
        // The selected (newest) one's detail: URL, the server's message, its file, the answer.
        let text = screen.joined(separator: "\n")
        #expect(text.contains("POST https://api.example.com/ocr"))
        #expect(text.contains("✘ 身份证号码格式错误"))
        #expect(text.contains("back ← /data/back.jpg  1.95 KiB"))
        #expect(text.contains(#""RETMSG": "身份证号码格式错误""#))
        #expect(screen.last?.contains("Enter stage again") == true)
    }

    /// `/` filters by outcome or by words; a cancelled upload is ⊘, not a failure (issue 37 #8).
    @Test func slashFiltersByOutcomeOrWords() throws {
        let cancelled =
            #"{"time":"2026-11-23T08:31:00Z","name":"scan 2.pdf","url":"https://files.example.com/in","ok":false,"status":null,"error":"cancelled by the user","method":"POST","files":[]}"#
        let items = try Self.items() + [try #require(HistoryItem(entry: try JSONParser.parse(Array(cancelled.utf8))))]
        #expect(items.map(\.outcome) == [.succeeded, .failed, .cancelled])
        var model = Fixtures.model(width: 100, height: 30)
        _ = model.update(.key(.character("L")))
        _ = model.update(.historyLoaded(items, error: nil))
        func rows() -> [String] { Fixtures.render(model).filter { $0.contains("2026-11-23 08:") } }
        #expect(rows().count == 3)
        #expect(rows()[0].contains("⊘ --- POST  scan 2.pdf"), "\(rows())")
        _ = model.update(.key(.character("/")))
        for c in "failed" { _ = model.update(.key(.character(c))) }
        #expect(rows().count == 1 && rows()[0].contains("✘ 200 POST  back.jpg"), "\(rows())")
        #expect(Fixtures.render(model).contains { $0.contains("/failed▏  1 of 3   Enter keep   Esc clear") })
        _ = model.update(.key(.enter))
        #expect(Fixtures.render(model).contains { $0.contains("filter: failed  1 of 3") })
        // Enter on the kept filter's item stages it, as without a filter.
        #expect(model.update(.key(.enter)) == [.stage(paths: ["/data/back.jpg"], field: "back")])
        _ = model.update(.key(.character("L")))
        _ = model.update(.historyLoaded(items, error: nil))
        _ = model.update(.key(.character("/")))
        for c in "正面 OCR" { _ = model.update(.key(.character(c))) }
        #expect(rows().count == 1 && rows()[0].contains("身份证 正面.jpg"), "words in any case: \(rows())")
        for _ in 0..<8 { _ = model.update(.key(.backspace)) }
        for c in "nothing" { _ = model.update(.key(.character(c))) }
        #expect(Fixtures.render(model).contains { $0.contains("no upload matches the filter") })
        _ = model.update(.key(.escape))
        #expect(rows().count == 3, "Esc while typing drops the filter")
        #expect(model.overlay != nil)
    }

    @Test func enterStagesTheFilesAgainUnderTheirFieldsAndAimsTheTarget() throws {
        var model = Fixtures.model(width: 100, height: 30)
        _ = model.update(.key(.character("L")))
        _ = model.update(.historyLoaded(try Self.items(), error: nil))
        _ = model.update(.key(.down))
        #expect(model.update(.key(.enter)) == [.stage(paths: ["/data/身份证 正面.jpg"], field: "image")])
        #expect(model.overlay == nil)
        #expect(model.target.url == "https://api.example.com/ocr")
        #expect(model.target.method == .put)
        _ = model.update(
            .staged([StagedFile(path: "/data/身份证 正面.jpg", size: 180006, fieldName: "image")], problems: []))
        #expect(model.files.map(\.fieldName) == ["image"], "sent under the same field as before")
        #expect(model.files.map(\.marked) == [true], "marked: u sends exactly it")
    }

    /// With files staged already, Enter asks: r replaces them, a adds the
    /// earlier upload's files beside them, marked, so u sends only those.
    @Test func withFilesStagedEnterAsksToReplaceOrAdd() throws {
        var model = Fixtures.busyModel(width: 100, height: 30)
        let before = model.files.count
        _ = model.update(.key(.character("L")))
        _ = model.update(.historyLoaded(try Self.items(), error: nil))
        _ = model.update(.key(.down))
        #expect(model.update(.key(.enter)).isEmpty)
        #expect(model.overlay.map { if case .restage = $0 { true } else { false } } == true)
        let screen = Fixtures.render(model).joined(separator: "\n")
        #expect(screen.contains("1 file of that upload; \(before) files are staged now."), "\(screen)")
        #expect(screen.contains("r  replace the staged files with them"))
        // a: added beside the others, and only it marked.
        #expect(model.update(.key(.character("a"))) == [.stage(paths: ["/data/身份证 正面.jpg"], field: "image")])
        _ = model.update(
            .staged([StagedFile(path: "/data/身份证 正面.jpg", size: 180006, fieldName: "image")], problems: []))
        #expect(
            model.files.count == before + 1
                && model.files.map(\.marked) == Array(repeating: false, count: before) + [true])
        guard case .upload(let requests, _)? = model.update(.key(.character("u"))).first else {
            Issue.record("u uploads")
            return
        }
        #expect(requests.count == 1 && requests[0].url == "https://api.example.com/ocr")

        // r: the staged files give way to the earlier upload's.
        _ = model.update(.key(.character("L")))
        _ = model.update(.historyLoaded(try Self.items(), error: nil))
        _ = model.update(.key(.down))
        _ = model.update(.key(.enter))
        _ = model.update(.key(.character("r")))
        #expect(model.files.isEmpty)
    }

    @Test func anUnreadableHistoryIsSaidAndEscCloses() {
        var model = Fixtures.model(width: 80, height: 24)
        _ = model.update(.key(.character("L")))
        _ = model.update(.historyLoaded([], error: "cannot read /state/hoist/history.jsonl"))
        #expect(Fixtures.render(model).contains { $0.contains("✘ cannot read /state/hoist/history.jsonl") })
        _ = model.update(.key(.escape))
        #expect(model.overlay == nil)
    }
}
