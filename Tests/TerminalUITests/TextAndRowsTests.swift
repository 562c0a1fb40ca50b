import Testing
import UploadEngine

@testable import TerminalUI

@Suite struct TextWidthTests {
    @Test func widths() {
        #expect(TextWidth.columns(of: "abc") == 3)
        #expect(TextWidth.columns(of: "身份证 正面.jpg") == 15)
        #expect(TextWidth.columns(of: "🚀📦") == 4)
        #expect(TextWidth.columns(of: "e\u{301}") == 1, "a combining accent takes no column")
        #expect(TextWidth.columns(of: "ｆｕｌｌ") == 8)
        #expect(TextWidth.columns(of: "❤️") == 2, "emoji presentation")
    }

    @Test func truncateByColumnsNeverSplitsAWideCharacter() {
        #expect(TextWidth.truncate("身份证 正面.jpg", toColumns: 6) == "身份…")
        #expect(TextWidth.truncate("身份证 正面.jpg", toColumns: 7) == "身份证…")
        #expect(TextWidth.truncate("short", toColumns: 10) == "short")
        #expect(TextWidth.fit("身份", toColumns: 6) == "身份  ")
        #expect(TextWidth.fit("7", toColumns: 3, alignRight: true) == "  7")
        #expect(TextWidth.columns(of: TextWidth.fit("🚀🚀🚀🚀", toColumns: 5)) == 5)
    }
}

@Suite struct FormatTests {
    @Test func units() {
        #expect(Format.bytes(0) == "0 B")
        #expect(Format.bytes(1023) == "1023 B")
        #expect(Format.bytes(1024) == "1.00 KiB")
        #expect(Format.bytes(4_718_592) == "4.50 MiB")
        #expect(Format.bytes(123 << 20) == "123 MiB")
        #expect(Format.bytes(1 << 30) == "1.00 GiB")
        #expect(Format.rate(0) == "-")
        #expect(Format.rate(2_202_010) == "2.10 MiB/s")
        #expect(Format.duration(.milliseconds(400)) == "1s")
        #expect(Format.duration(.seconds(0)) == "0s")
        #expect(Format.duration(.seconds(185)) == "3m05s")
        #expect(Format.duration(.seconds(7620)) == "2h07m")
    }

    @Test func percentAndBarReach100OnlyWhenComplete() {
        #expect(Format.percent(0.999) == "99%")
        #expect(Format.percent(1) == "100%")
        #expect(Format.bar(0.999, width: 10) == "[#########-]")
        #expect(Format.bar(1, width: 10) == "[##########]")
        #expect(Format.bar(nil, width: 4) == "[~~~~]")
    }
}

@Suite struct TransferRowsTests {
    static func task(
        _ id: Int, _ name: String, state: TaskState, sent: Int64, total: Int64?, speed: Double = 0,
        eta: Duration? = nil, status: Int? = nil
    ) -> TaskSnapshot {
        var snapshot = TaskSnapshot(
            id: TaskID(id), request: UploadRequest(url: "http://x/", body: .json([]), label: name), priority: .normal,
            dependency: nil, state: state,
            progress: UploadProgress(attempt: 1, bytesSent: sent, totalBytes: total, bytesPerSecond: speed, eta: eta),
            attempts: 1, response: nil, answeredEarly: false, addedAt: .now, startedAt: nil, finishedAt: nil)
        if let status {
            snapshot.response = UploadResponse(
                status: status, headers: [], elapsed: .zero, body: [], bodyBytesReceived: 0, content: .empty)
        }
        return snapshot
    }

    let sample = [
        TransferRowsTests.task(
            1, "身份证 正面.jpg", state: .sending, sent: 4_718_592, total: 10_485_760, speed: 2_202_010, eta: .seconds(3)),
        TransferRowsTests.task(2, "notes.txt", state: .succeeded, sent: 1024, total: 1024, status: 200),
    ]

    @Test func rowsAtEightyColumns() {
        let lines = TransferRows.lines(for: sample, width: 80, maxRows: 10)
        #expect(
            lines == [
                "身份证 正面.jpg  [##----]  45%    4.50 MiB / 10.0 MiB  ETA 3s     sending       ",
                "notes.txt        [######] 100%    1.00 KiB / 1.00 KiB             done 200      ",
                "Total 1/2 done   [##----]  45%    4.50 MiB / 10.0 MiB  ETA 3s                   ",
            ])
        #expect(lines.allSatisfy { TextWidth.columns(of: $0) == 80 })
    }

    /// A narrow pane drops the bytes, then the bar: the status always shows.
    @Test func rowsInANarrowPaneKeepTheStatus() {
        let lines = TransferRows.lines(for: sample, width: 50, maxRows: 10)
        #expect(
            lines == [
                "身份证 …  [##----]  45%  ETA 3s     sending       ",
                "notes.txt [######] 100%             done 200      ",
                "Total 1/2 done [##----]  45%  ETA 3s              ",
            ])
        #expect(lines.allSatisfy { TextWidth.columns(of: $0) == 50 })
        let narrow = TransferRows.lines(for: sample, width: 40, maxRows: 10)
        #expect(narrow[0] == "身份证 …  45%  ETA 3s     sending       ", "\(narrow)")
        #expect(narrow.allSatisfy { TextWidth.columns(of: $0) == 40 }, "\(narrow)")
    }

    @Test func rowsAtWideTerminal() {
        let lines = TransferRows.lines(for: sample, width: 120, maxRows: 10)
        #expect(
            lines == [
                "身份证 正面.jpg              [#########-----------]  45%    4.50 MiB / 10.0 MiB    2.10 MiB/s  ETA 3s     sending       ",
                "notes.txt                    [####################] 100%    1.00 KiB / 1.00 KiB                           done 200      ",
                "Total 1/2 done               [#########-----------]  45%    4.50 MiB / 10.0 MiB    2.10 MiB/s  ETA 3s                   ",
            ])
        #expect(lines.allSatisfy { TextWidth.columns(of: $0) == 120 })
    }

    /// A resumed upload says where it went on from, as the UI's row does,
    /// and its bar starts there.
    @Test func aResumedUploadSaysWhereItWentOnFrom() {
        var task = Self.task(1, "big.bin", state: .sending, sent: 31_457_280, total: 62_914_560, eta: .seconds(3))
        task.resumedFrom = 31_457_280
        #expect(
            TransferRows.row(task, width: 80)
                == "big.bin          [###---]  50%    30.0 MiB / 60.0 MiB  ETA 3s     from 30.0 MiB ")
        var done = Self.task(1, "big.bin", state: .succeeded, sent: 62_914_560, total: 62_914_560, status: 204)
        done.resumedFrom = 31_457_280
        #expect(TransferRows.status(done) == "done 204")
    }

    /// Once a body is sent, its task moves no bytes: no speed or ETA on its
    /// row, and none counted in the totals while it waits for its reply.
    @Test func aTaskWaitingForItsReplyShowsNoSpeed() {
        let waiting = Self.task(
            1, "a.jpg", state: .awaitingResponse, sent: 100, total: 100, speed: 3_000_000, eta: .zero)
        let sending = Self.task(2, "b.jpg", state: .sending, sent: 50, total: 100, speed: 1_000_000, eta: .seconds(1))
        let row = TransferRows.row(waiting, width: 120)
        #expect(!row.contains("/s") && !row.contains("ETA") && row.contains("waiting reply"), "\(row)")
        #expect(TransferTotals([waiting, sending]).bytesPerSecond == 1_000_000)
    }

    /// A long path loses the middle of its folders, never its file's name.
    @Test func aLongPathIsCutInItsFoldersNotItsName() {
        #expect(TextWidth.fitPath("x/y/z/deep/file_123.jpg", toColumns: 19) == "x/y/z…/file_123.jpg")
        #expect(TextWidth.fitPath("2026/june/trip/身份证 正面.jpg", toColumns: 26) == "2026/june…/身份证 正面.jpg")
        #expect(TextWidth.fitPath("short/a.jpg", toColumns: 14) == "short/a.jpg   ")
        // No room for any folder: the name alone, cut at its end as any text.
        #expect(TextWidth.fitPath("folder/a-very-long-file-name.bin", toColumns: 12) == "a-very-long…")
        #expect(TextWidth.fitPath("no-folder-but-long.bin", toColumns: 10) == "no-folder…")
        let task = Self.task(1, "photos/2026/june/trip/day-one/IMG_1000.jpg", state: .queued, sent: 0, total: 100)
        let row = TransferRows.row(task, width: 100)
        #expect(row.hasPrefix("photos/2026/june/trip/day-one/IMG_1000.jpg") || row.contains("…/IMG_1000.jpg"), "\(row)")
        #expect(TransferRows.row(task, width: 70).contains("…/IMG_1000.jpg"), "\(TransferRows.row(task, width: 70))")
    }

    /// A task waiting to try again counts down to its retry, in `send`'s
    /// rows and in the UI's Tasks pane, and never below 0.
    @Test func aRetryCountsDownToItsStart() {
        let start = ContinuousClock.now
        let task = Self.task(1, "a.jpg", state: .waitingToRetry(at: start + .seconds(13)), sent: 0, total: 100)
        #expect(TransferRows.status(task, now: start) == "retry in 13s")
        #expect(TransferRows.status(task, now: start + .milliseconds(4500)) == "retry in 9s")
        #expect(TransferRows.status(task, now: start + .seconds(20)) == "retry in 0s")
        let row = TransferRows.row(task, width: 80, now: start + .seconds(5))
        #expect(row.hasSuffix("retry in 8s   "), "\(row)")
        #expect(TasksView.etaText(task, now: start) == "retry 13s")
        #expect(TasksView.etaText(task, now: start + .seconds(12)) == "retry 1s")
        var totals = TaskList.Totals()
        totals.add(task)
        #expect(totals.retrying == 1 && totals.waiting == 1)
    }

    @Test func aThousandTasksShowOnlyWhatFits() {
        let tasks = (1...1000).map {
            TransferRowsTests.task($0, "file-\($0).bin", state: $0 <= 8 ? .sending : .queued, sent: 10, total: 100)
        }
        let lines = TransferRows.lines(for: tasks, width: 100, maxRows: 12)
        #expect(lines.count == 13)
        #expect(lines[0].hasPrefix("file-1.bin"))
        #expect(lines[7].hasPrefix("file-8.bin"))
        #expect(lines.last!.hasPrefix("Total 0/1000 done"))
    }

    /// `hoist send`'s rows keep each task's share of the totals and change
    /// it as the task goes: the line must read as if counted afresh.
    @Test func totalsKeptAsTasksChangeMatchTotalsCountedAfresh() {
        typealias Task = TransferRowsTests
        let before = [
            Task.task(1, "a", state: .queued, sent: 0, total: 100),
            Task.task(2, "b", state: .sending, sent: 40, total: 100),
            Task.task(3, "c", state: .queued, sent: 0, total: nil),
            Task.task(4, "d", state: .sending, sent: 10, total: 50),
        ]
        let after = [
            Task.task(1, "a", state: .succeeded, sent: 100, total: 100, status: 200),
            Task.task(2, "b", state: .failed(.connectionLost("reset")), sent: 70, total: 100),
            Task.task(3, "c", state: .succeeded, sent: 30, total: 30, status: 201),
            Task.task(4, "d", state: .cancelled(reason: "stopped"), sent: 10, total: 50),
        ]
        var kept = TransferTotals()
        var parts: [TaskID: TransferTotals.Part] = [:]
        for task in before + after {
            if let old = parts.updateValue(TransferTotals.Part(task), forKey: task.id) { kept.remove(old) }
            kept.add(TransferTotals.Part(task))
        }
        #expect(kept == TransferTotals(after))
        #expect(kept.count == 4 && kept.succeeded == 2 && kept.failed == 1 && kept.cancelled == 1)
        #expect(kept.bytesSent == 210 && kept.totalBytes == 280 && kept.unknownSizes == 0)
        #expect(
            TransferRows.lines(unfinished: [], finished: after, totals: kept, width: 100, maxRows: 10)
                == TransferRows.lines(for: after, width: 100, maxRows: 10))
        // While c's size is unknown the totals line has no fraction.
        #expect(TransferTotals(before).unknownSizes == 1)
        #expect(TransferRows.totals(TransferTotals(before), width: 100).contains("[~~~~"))
    }
}
