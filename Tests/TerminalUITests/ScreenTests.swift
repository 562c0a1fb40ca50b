import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// Whole screens rendered from models and compared as text, as a user reads them.
@Suite struct ScreenTests {
    /// A name holding a tab, a newline or an escape shows where they are,
    /// as pictures, and its row keeps the pane's width (issue 37 #11).
    @Test func controlCharactersInANameAreShownAsPictures() {
        var m = Fixtures.model(width: 100, height: 24)
        let name = "tab\tand\nnewline\u{1B}[31m.txt"
        _ = m.update(.staged([StagedFile(path: "/data/" + name, size: 10)], problems: []))
        _ = m.update(.engine(.added(Fixtures.task(1, name, state: .queued, total: 10))))
        let lines = Fixtures.render(m)
        #expect(lines.contains { $0.contains("tab␉and␊newline␛[31m.txt") && $0.hasPrefix("│") }, "\(lines)")
        #expect(lines.filter { $0.contains("tab␉and␊newline") }.count >= 2, "the file and its task: \(lines)")
        #expect(lines.allSatisfy { TextWidth.columns(of: $0) <= 100 })
        var grid = Grid(size: Size(width: 12, height: 1))
        #expect(grid.put("a\u{7F}b\u{85}c\r\n", x: 0, y: 0) == 7)
        #expect(grid.lines() == ["a␡b�c␍␊     "])
    }

    /// A ZWJ sequence or a skin tone is drawn as its first emoji, 2 columns in
    /// every terminal; tmux drew the family in 6 and shifted the row (issue 37 #11).
    @Test func joinedEmojiAreDrawnAsTheirFirstEmoji() {
        var grid = Grid(size: Size(width: 12, height: 1))
        #expect(grid.put("a👨‍👩‍👧b👍🏽c🏳️‍🌈", x: 0, y: 0) == 9)
        #expect(grid.lines() == ["a👨b👍c🏳\u{FE0F}   "])
        #expect(TextWidth.drawable("é") == "é", "a combining mark stays")
        var m = Fixtures.model(width: 100, height: 24)
        _ = m.update(.staged([StagedFile(path: "/data/family 👨‍👩‍👧 day.jpg", size: 10)], problems: []))
        let lines = Fixtures.render(m)
        #expect(lines.contains { $0.contains("family 👨 day.jpg") }, "\(lines)")
    }

    @Test func busyScreenAt120x40() {
        #expect(
            Fixtures.render(Fixtures.busyModel(width: 120, height: 40)) == [
                " Hoist │ POST http://127.0.0.1:8080/upload · multipart                                    task per file │ ▶ running 2/3",
                "╭─ Files ───────────── 1/3 · 200 MiB ─╮╭─ Tasks ───────────────────────────────────────────────────────────────── 1/3 ─╮",
                "│  身份证 正面.jpg             176 KiB││✔ 身份证 正面.jpg    [████████] 100%   176 KiB/176 KiB                   2s 200│",
                "│    image/jpeg  → field image        ││↑ 身份证 反面.jpg    [███░░░░░]  49%  87.9 KiB/176 KiB 1.00 MiB/s    ETA 1s   —│",
                "│  身份证 反面.jpg             176 KiB││↑ build-artifact.ta… [█░░░░░░░]  24%  50.0 MiB/200 MiB 40.0 MiB/s    ETA 4s   —│",
                "│    image/jpeg  → field image        ││                                                                               │",
                "│  build-artifact.tar.gz       200 MiB││                                                                               │",
                "│    application/gzip  → field file   ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││ 3 tasks  ↑ 2  ✔ 1                   50.3 MiB/200 MiB  25%  41.0 MiB/s  ETA 4s │",
                "╰─────────────────────────────────────╯╰───────────────────────────────────────────────────────────────────────────────╯",
                "╭─ Fields & headers ────────────── 2 ─╮╭─ Response · 身份证 正面.jpg ──────────────────────────────────────────────────╮",
                "│ F user_id = 42                      ││HTTP 200 OK · 12 ms · 77 B · application/json                                  │",
                "│ H Authorization: ••••••             ││▾ $ 3 keys                                                                     │",
                "│                                     ││    RETCODE: \"0000\"                                                            │",
                "│                                     ││    RETMSG: \"成功\"                                                             │",
                "│                                     ││  ▾ files 1 item                                                               │",
                "│                                     ││    ▾ 0 2 keys                                                                 │",
                "│                                     ││        name: \"image\"                                                          │",
                "│                                     ││        size: 180006                                                           │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "│                                     ││                                                                               │",
                "╰─────────────────────────────────────╯╰───────────────────────────────────────────────────────────────────────────────╯",
                " a add  Space mark  e edit  d delete  o mode  u upload  U each  p pause  +/- slots  t target  Tab pane  ? help  q quit",
            ])
    }

    /// 80×24: Files and Fields side by side, the type column instead of a second row, no profile in the bar.
    @Test func busyScreenAt80x24() {
        let lines = Fixtures.render(Fixtures.busyModel(width: 80, height: 24))
        #expect(
            lines == [
                " Hoist │ POST http://127.0.0.1:8080/upload · multipart            ▶ running 2/3",
                "╭─ Files ────────────────── 1/3 · 200 MiB ─╮╭─ Fields & headers ─────────── 2 ─╮",
                "│  身份证 正面.jpg       176 KiB image/jpeg││ F user_id = 42                   │",
                "│  身份证 反面.jpg       176 KiB image/jpeg││ H Authorization: ••••••          │",
                "│  build-artifact.tar…   200 MiB applicati…││                                  │",
                "│                                          ││                                  │",
                "╰──────────────────────────────────────────╯╰──────────────────────────────────╯",
                "╭─ Tasks ──────────────────────────────────────────────────────────────── 1/3 ─╮",
                "│✔ 身份证 正面.jpg   [████████] 100%   176 KiB/176 KiB                   2s 200│",
                "│↑ 身份证 反面.jpg   [███░░░░░]  49%  87.9 KiB/176 KiB 1.00 MiB/s    ETA 1s   —│",
                "│↑ build-artifact.t… [█░░░░░░░]  24%  50.0 MiB/200 MiB 40.0 MiB/s    ETA 4s   —│",
                "│                                                                              │",
                "│                                                                              │",
                "│ 3 tasks  ↑ 2  ✔ 1                  50.3 MiB/200 MiB  25%  41.0 MiB/s  ETA 4s │",
                "╰──────────────────────────────────────────────────────────────────────────────╯",
                "╭─ Response · 身份证 正面.jpg ─────────────────────────────────────────────────╮",
                "│HTTP 200 OK · 12 ms · 77 B · application/json                                 │",
                "│▾ $ 3 keys                                                                    │",
                "│    RETCODE: \"0000\"                                                           │",
                "│    RETMSG: \"成功\"                                                            │",
                "│  ▾ files 1 item                                                              │",
                "│    ▾ 0 2 keys                                                             1/8│",
                "╰──────────────────────────────────────────────────────────────────────────────╯",
                " a add  Space mark  e edit  d delete  o mode  u upload  U each          ? help",
            ])
        #expect(lines.allSatisfy { TextWidth.columns(of: $0) <= 80 })
    }

    @Test func aThousandTasksDrawOnlyTheVisibleRowsAndFollowTheCursor() {
        var m = Fixtures.model(width: 80, height: 24)
        for i in 1...1000 {
            _ = m.update(
                .engine(
                    .added(
                        Fixtures.task(
                            i, "scan-\(i).png", state: i <= 8 ? .sending : .queued, sent: 500, total: 1000, speed: 2048,
                            eta: .seconds(1)))))
        }
        m.focus = .tasks
        _ = m.update(.key(.character("G")))
        let lines = Fixtures.render(m)
        let taskRows = lines.filter { $0.contains("scan-") && $0.contains("[") }
        #expect(taskRows.count == ScreenLayout(size: m.size).listHeight(.tasks))
        #expect(taskRows.last?.contains("scan-1000.png") == true)
        #expect(lines.contains { $0.contains("1000/1000") }, "the frame shows the position")
        #expect(lines.contains { $0.contains("1000 tasks  ↑ 8  · 992") })
    }

    @Test func cjkAndEmojiNamesKeepTheColumnsAligned() {
        var m = Fixtures.model(width: 80, height: 24)
        for (i, name) in ["身份证 正面.jpg", "photos 📷 2026.zip", "plain.txt", "合同合同合同合同合同合同合同.pdf"].enumerated() {
            _ = m.update(
                .engine(
                    .added(
                        Fixtures.task(
                            i + 1, name, state: .sending, sent: 512, total: 1024, speed: 100, eta: .seconds(5)))))
        }
        let rows = Fixtures.render(m).filter { $0.contains("[") && $0.contains("%") }
        #expect(rows.count == 4)
        // Every bar starts at the same column, whatever the name's script.
        let barColumns = rows.map { row in TextWidth.columns(of: String(row[..<row.firstIndex(of: "[")!])) }
        #expect(Set(barColumns).count == 1)
        #expect(rows[3].contains("合同合同合同合同… ["), "cut by columns with an ellipsis")
    }

    @Test func overlays() {
        var m = Fixtures.busyModel(width: 100, height: 30)
        _ = m.update(.key(.character("?")))
        var text = Fixtures.render(m).joined(separator: "\n")
        #expect(text.contains("─ Keys ─"))
        #expect(text.contains("Tab / Shift-Tab") && text.contains("next / previous pane"))
        // A long description wraps under itself instead of being cut.
        var tall = Fixtures.busyModel(width: 100, height: 60)
        _ = tall.update(.key(.character("?")))
        let help = Fixtures.render(tall).joined(separator: "\n")
        #expect(help.contains("mode of u: one task per file") && help.contains("before succeeded)"), "\(help)")
        _ = m.update(.key(.escape))

        _ = m.update(.key(.character("a")))
        _ = m.update(
            .listed(
                directory: "/data",
                entries: [
                    DirectoryEntry(name: "身份证 正面.jpg", isDirectory: false, size: 180_006),
                    DirectoryEntry(name: "photos", isDirectory: true),
                ]))
        _ = m.update(.key(.down))
        _ = m.update(.key(.down))
        _ = m.update(.key(.character(" ")))
        let browser = Fixtures.render(m)
        text = browser.joined(separator: "\n")
        #expect(text.contains("─ Add files ─") && text.contains("1 marked"))
        #expect(browser.contains { $0.contains("photos/") })
        #expect(browser.contains { $0.contains("● 身份证 正面.jpg") && $0.contains("176 KiB") })
        #expect(text.contains("glob: (all files; / to set)"))
        _ = m.update(.key(.escape))

        _ = m.update(.key(.character("t")))
        text = Fixtures.render(m).joined(separator: "\n")
        #expect(text.contains("─ Target ─") && text.contains("http://127.0.0.1:8080/upload"))
        #expect(text.contains(" POST ") && text.contains(" multipart "))
        // 15 rows do not fit with a hint under each in 30 lines: a row a line, every one shown.
        #expect(text.contains("│ Expect ") && text.contains("│ Endpoint ") && text.contains("│ Keys "))
        #expect(!text.contains("RETCODE=0000"), "no hints under the rows when they do not fit")
        _ = m.update(.key(.escape))

        _ = m.update(.key(.character("q")))
        text = Fixtures.render(m).joined(separator: "\n")
        #expect(text.contains("2 uploads are not finished.") && text.contains("Quit and cancel them?  y / n"))
    }

    @Test func aTerminalTooSmallSaysSo() {
        #expect(
            Fixtures.render(Fixtures.model(width: 30, height: 10)).prefix(3) == [
                "terminal too small: Hoist", "needs 40×12, this one is 30×10", "",
            ])
    }

    @Test func everyPaneKeepsARowDownToTheMinimum() {
        for width in [40, 80, 119, 120, 200] {
            for height in 12...40 {
                let layout = ScreenLayout(size: Size(width: width, height: height))
                let size = "\(width)×\(height)"
                #expect(layout.tasks.height >= 4, "Tasks: frame, totals and a task row at \(size)")
                #expect(layout.response.height >= 3 && layout.files.height >= 3 && layout.fields.height >= 3, "\(size)")
                #expect(layout.response.maxY == height - 1, "the panes fill the screen down to the hints at \(size)")
            }
        }
        var m = Fixtures.model(width: 40, height: 12)
        _ = m.update(.engine(.added(Fixtures.task(1, "身份证 正面.jpg", state: .sending, sent: 10, total: 100))))
        #expect(Fixtures.render(m).contains { $0.contains("身份证") }, "the task shows at the minimum size")
    }

    @Test func noticesReplaceTheHints() {
        var m = Fixtures.model(width: 80, height: 24)
        m.target.url = ""
        _ = m.update(.key(.character("u")))
        #expect(Fixtures.render(m).last == " ✘ no target URL: press t to set one")
    }
}

@Suite struct GridTests {
    @Test func wideCharactersTakeTwoCellsAndOverwritingHalfClearsTheOther() {
        var grid = Grid(size: Size(width: 6, height: 1))
        grid.put("身份x", x: 0, y: 0)
        #expect(grid.line(0) == "身份x ")
        #expect(grid[1, 0].isContinuation)
        grid.put("a", x: 1, y: 0)
        #expect(grid.line(0) == " a份x ", "the orphaned left half became a blank")
        grid.put("正面", x: 3, y: 0)
        #expect(grid.line(0) == " a 正…", "a wide character that does not fit is cut with an ellipsis")
    }

    @Test func diffWritesOnlyChangedRunsAndWholeWideCharacters() {
        var before = Grid(size: Size(width: 10, height: 2))
        before.put("hello 身份", x: 0, y: 0)
        var after = before
        after.put("正", x: 8, y: 0)
        after.put("x", x: 0, y: 1)
        let changes = after.changes(from: before)
        #expect(changes.map(\.x) == [8, 0])
        #expect(changes.map(\.y) == [0, 1])
        #expect(changes[0].cells.map(\.text) == ["正", ""], "the run carries the continuation cell too")
        #expect(after.changes(from: after).isEmpty)
        #expect(after.changes(from: nil).count == 2, "no previous frame: every row")
        #expect(after.changes(from: Grid(size: Size(width: 5, height: 2))).count == 2, "a resize redraws everything")
    }
}
