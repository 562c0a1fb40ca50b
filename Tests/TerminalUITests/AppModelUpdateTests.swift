import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// `update`: messages in, model and effects out.
@Suite struct AppModelUpdateTests {
    func type(_ text: String, into model: inout AppModel) {
        for c in text { _ = model.update(.key(.character(c))) }
    }

    @Test func tabCyclesThePanesBothWays() {
        var m = Fixtures.model()
        #expect(m.focus == .files)
        for expected in [Pane.fields, .tasks, .response, .files] {
            _ = m.update(.key(.tab))
            #expect(m.focus == expected)
        }
        _ = m.update(.key(.backTab))
        #expect(m.focus == .response)
        _ = m.update(.key(.character("2")))
        #expect(m.focus == .fields)
    }

    @Test func addingAFieldAndASecretHeader() {
        var m = Fixtures.model()
        _ = m.update(.key(.character("f")))
        guard case .editor = m.overlay else {
            Issue.record("f opens the editor")
            return
        }
        type("user_id", into: &m)
        _ = m.update(.key(.tab))
        type("42", into: &m)
        _ = m.update(.key(.enter))
        #expect(m.overlay == nil)
        _ = m.update(.key(.character("H")))
        type("Authorization", into: &m)
        _ = m.update(.key(.tab))
        type("Bearer s3cr3t", into: &m)
        _ = m.update(.key(.enter))
        _ = m.update(.key(.character("f")))
        type("password", into: &m)
        _ = m.update(.key(.tab))
        type("hunter2", into: &m)
        _ = m.update(.key(.enter))
        #expect(
            m.entries == [
                FormEntry(kind: .field, name: "user_id", value: "42", isSecret: false),
                FormEntry(kind: .header, name: "Authorization", value: "Bearer s3cr3t", isSecret: true),
                FormEntry(kind: .field, name: "password", value: "hunter2", isSecret: true),
            ])
        // `s` toggles masking on the selected entry.
        m.focus = .fields
        m.cursor[.fields] = 0
        _ = m.update(.key(.character("s")))
        #expect(m.entries[0].isSecret)
    }

    @Test func badHeadersAreRefusedInTheEditor() {
        var m = Fixtures.model()
        _ = m.update(.key(.character("H")))
        type("Bad Name", into: &m)
        _ = m.update(.key(.tab))
        type("v", into: &m)
        _ = m.update(.key(.enter))
        guard case .editor(let form) = m.overlay else {
            Issue.record("the editor stays open")
            return
        }
        #expect(form.error?.contains("header name") == true)
        #expect(m.entries.isEmpty)
        _ = m.update(.key(.escape))
        #expect(m.overlay == nil)
        #expect(m.entries.isEmpty, "Escape saves nothing")
        // An empty name is refused too.
        _ = m.update(.key(.character("f")))
        _ = m.update(.key(.enter))
        guard case .editor(let again) = m.overlay else {
            Issue.record("still open")
            return
        }
        #expect(again.error == "the name is empty")
    }

    @Test func fileBrowserListsFiltersMarksAndStages() {
        var m = Fixtures.model()
        #expect(m.update(.key(.character("a"))) == [.list(directory: "/data")])
        _ = m.update(
            .listed(
                directory: "/data",
                entries: [
                    DirectoryEntry(name: "z.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: "img10.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: "img2.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: ".secret.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: "notes.txt", isDirectory: false, size: 10),
                    DirectoryEntry(name: "photos", isDirectory: true),
                ]))
        func names(_ m: AppModel) -> [String] {
            guard case .browser(let b) = m.overlay else { return [] }
            return b.visibleEntries.map(\.name)
        }
        #expect(
            names(m) == ["..", "photos", "img2.jpg", "img10.jpg", "notes.txt", "z.jpg"],
            "dirs first, natural order, hidden not shown")
        _ = m.update(.key(.character(".")))
        #expect(names(m).contains(".secret.jpg"))
        _ = m.update(.key(.character(".")))
        _ = m.update(.key(.character("/")))
        type("*.jpg", into: &m)
        _ = m.update(.key(.enter))
        #expect(names(m) == ["..", "photos", "img2.jpg", "img10.jpg", "z.jpg"], "the glob keeps directories")
        // Space marks a folder whole, says so, and moves on like Space on a file; again unmarks it.
        _ = m.update(.key(.down))  // photos
        _ = m.update(.key(.character(" ")))  // to img2.jpg
        #expect(m.notice == Notice("marked photos/: a stages every file under it"))
        if case .browser(let b) = m.overlay { #expect(b.marked == ["/data/photos"]) }
        #expect(Fixtures.render(m).contains { $0.contains("● photos/") }, "a marked folder shows its mark")
        _ = m.update(.key(.up))
        _ = m.update(.key(.character(" ")))
        if case .browser(let b) = m.overlay { #expect(b.marked.isEmpty) }
        // * marks the files shown, and says the folders were not.
        _ = m.update(.key(.character("*")))
        #expect(m.notice == Notice("marked 3 files (not the 1 folder: Space marks a folder whole)"))
        _ = m.update(.key(.character("*")))
        #expect(m.notice == Notice("unmarked 3 files (not the 1 folder: Space marks a folder whole)"))
        _ = m.update(.key(.home))
        _ = m.update(.key(.down))
        _ = m.update(.key(.down))
        _ = m.update(.key(.character(" ")))  // mark img2.jpg, move to img10
        _ = m.update(.key(.down))  // z.jpg
        _ = m.update(.key(.character(" ")))
        #expect(m.update(.key(.character("a"))) == [.stage(paths: ["/data/img2.jpg", "/data/z.jpg"], field: "file")])
        #expect(m.overlay == nil)
        _ = m.update(
            .staged(
                [StagedFile(path: "/data/img2.jpg", size: 10), StagedFile(path: "/data/z.jpg", size: 10)], problems: [])
        )
        #expect(m.files.map(\.baseName) == ["img2.jpg", "z.jpg"])
        #expect(m.files.map(\.detectedType) == ["image/jpeg", "image/jpeg"])
        #expect(m.notice == Notice("staged 2 files"))
        _ = m.update(
            .staged(
                [StagedFile(path: "/data/photos/2026/a.jpg", size: 10)], problems: [],
                folders: ["photos/: 1 file (2 hidden left out)"]))
        #expect(m.notice == Notice("staged 1 file · photos/: 1 file (2 hidden left out)"))
    }

    @Test func browserEntersDirectoriesAndGoesUp() {
        var m = Fixtures.model()
        _ = m.update(.key(.character("a")))
        _ = m.update(.listed(directory: "/data", entries: [DirectoryEntry(name: "photos", isDirectory: true)]))
        _ = m.update(.key(.down))
        #expect(m.update(.key(.enter)) == [.list(directory: "/data/photos")])
        #expect(m.update(.key(.backspace)) == [.list(directory: "/data")])
        _ = m.update(.listingFailed(directory: "/data", error: "cannot open /data: Permission denied"))
        guard case .browser(let b) = m.overlay else {
            Issue.record("browser open")
            return
        }
        #expect(b.error == "cannot open /data: Permission denied")
        #expect(FileBrowser.parent(of: "/data") == "/")
        #expect(FileBrowser.parent(of: "/") == "/")
    }

    @Test func stagingProblemsAreShown() {
        var m = Fixtures.model()
        _ = m.update(.staged([], problems: ["is a directory: /tmp (field \"file\")"]))
        #expect(m.notice == Notice("is a directory: /tmp (field \"file\")", isError: true))
    }

    @Test func uploadEachFileOrAllInOneRequest() throws {
        var m = Fixtures.busyModel()
        var effects = m.update(.key(.character("u")))
        guard case .upload(let each, _) = effects.first else {
            Issue.record("u uploads")
            return
        }
        #expect(each.count == 3)
        #expect(each.map(\.displayName) == ["身份证 正面.jpg", "身份证 反面.jpg", "build-artifact.tar.gz"])
        guard case .multipart(let form) = each[0].body else {
            Issue.record("multipart")
            return
        }
        #expect(form.parts.map(\.name) == ["user_id", "image"])
        #expect(form.parts[1].filename == "身份证 正面.jpg")
        #expect(each[0].headers == [HeaderField("Authorization", "Bearer abc")])

        _ = m.update(.key(.character("o")))
        effects = m.update(.key(.character("u")))
        guard case .upload(let one, _) = effects.first else {
            Issue.record("u uploads")
            return
        }
        #expect(one.count == 1)
        guard case .multipart(let all) = one[0].body else {
            Issue.record("multipart")
            return
        }
        #expect(all.parts.map(\.name) == ["user_id", "image", "image", "file"])

        // Marked files only, and `U` always sends one task per file.
        m.cursor[.files] = 1
        _ = m.update(.key(.character(" ")))
        effects = m.update(.key(.character("U")))
        guard case .upload(let marked, _) = effects.first else {
            Issue.record("U uploads")
            return
        }
        #expect(marked.map(\.displayName) == ["身份证 反面.jpg"])
        #expect(m.files.allSatisfy { !$0.marked }, "marks are cleared once sent")
    }

    /// A tus or S3 target sends each file alone: the top bar says so, not
    /// the multipart body and "task per file" of the same target sent plainly.
    @Test func theTopBarNamesATusOrS3Target() throws {
        var m = Fixtures.busyModel()
        m.target.transfer = .tus
        var top = Fixtures.render(m)[0]
        #expect(top.contains("│ tus http://") && top.contains(" · resumable "), "\(top)")
        #expect(!top.contains("multipart") && !top.contains("task per file"), "\(top)")
        _ = m.update(.key(.character("u")))
        #expect(m.notice?.text.contains(" → tus http://") == true, "\(String(describing: m.notice))")
        m.target.url = "s3://photos/2026/"
        top = Fixtures.render(m)[0]
        #expect(top.contains("│ S3 s3://photos/2026/ · object per file "), "\(top)")
        m.target = Target(url: "http://127.0.0.1:9/upload")
        top = Fixtures.render(m)[0]
        #expect(
            top.contains("│ POST http://127.0.0.1:9/upload · multipart ") && top.contains("task per file"), "\(top)")
    }

    /// `o` twice: a chain, in the Files pane's order (K and J change it);
    /// the later links hang under the first, and `r` on a failed link runs
    /// it again with the links its failure cancelled.
    @Test func aChainSendsTheFilesInTheOrderShownEachAfterTheOneBefore() throws {
        var m = Fixtures.busyModel()
        _ = m.update(.key(.character("o")))
        _ = m.update(.key(.character("o")))
        #expect(m.sendMode == .chain)
        #expect(m.notice?.text == "u sends the files in the order shown, each after the one before succeeded")
        #expect(Fixtures.render(m)[0].contains(" chain │ ▶ running"), "the top bar says so")
        m.target.expectations = [SuccessRule.Expectation(path: "RETCODE", value: "0000")]
        #expect(Fixtures.render(m)[0].contains("· multipart · expect RETCODE=0000 "), "and the expectation")
        let url = m.target.url
        m.target.url = url + "?json=" + String(repeating: "%7B%22RETCODE%22", count: 10)
        let top = Fixtures.render(m)[0]
        #expect(top.contains("… · multipart · expect RETCODE=0000 "), "a long URL gives way: \(top)")
        m.target.url = url
        // J moves the selected file down, K up; the cursor follows it.
        m.cursor[.files] = 0
        _ = m.update(.key(.character("J")))
        #expect(m.files.map(\.baseName) == ["身份证 反面.jpg", "身份证 正面.jpg", "build-artifact.tar.gz"])
        #expect(m.cursor(.files) == 1)
        _ = m.update(.key(.character("K")))
        #expect(m.files.map(\.baseName) == ["身份证 正面.jpg", "身份证 反面.jpg", "build-artifact.tar.gz"])
        let effects = m.update(.key(.character("u")))
        guard case .upload(let links, let chained)? = effects.first else {
            Issue.record("u uploads")
            return
        }
        #expect(chained && links.map(\.displayName) == ["身份证 正面.jpg", "身份证 反面.jpg", "build-artifact.tar.gz"])

        // The front failed; the back and the artifact were cancelled because of it.
        var front = Fixtures.task(11, "身份证 正面.jpg", state: .failed(.httpStatus(500, message: nil)))
        var back = Fixtures.task(12, "身份证 反面.jpg", state: .cancelled(reason: "身份证 正面.jpg (task #11) failed"))
        var artifact = Fixtures.task(13, "build-artifact.tar.gz", state: .cancelled(reason: "…"))
        back.dependency = front.id
        artifact.dependency = back.id
        front.request.label = "身份证 正面.jpg"
        for task in [front, back, artifact] { _ = m.update(.engine(.added(task))) }
        let screen = Fixtures.render(m)
        #expect(screen.contains { $0.contains("⊘ ╰ 身份证 反面.jpg") }, "\(screen)")
        m.focus = .tasks
        m.cursor[.tasks] = m.tasks.visible.firstIndex(of: front.id)!
        #expect(m.update(.key(.character("r"))) == [.retry(front.id), .retry(back.id), .retry(artifact.id)])
        // On a link that is not a chain's, r is that task alone.
        m.cursor[.tasks] = m.tasks.visible.firstIndex(of: artifact.id)!
        #expect(m.update(.key(.character("r"))) == [.retry(artifact.id)])
    }

    @Test func uploadWithoutATargetOrAnythingStagedExplainsWhy() {
        var m = AppModel(size: Size(width: 80, height: 24), target: Target(), startDirectory: "/")
        #expect(m.update(.key(.character("u"))).isEmpty)
        #expect(m.notice == Notice("no target URL: press t to set one", isError: true))
        m.target.url = "http://127.0.0.1:1/x"
        #expect(m.update(.key(.character("u"))).isEmpty)
        #expect(m.notice?.text.hasPrefix("nothing to upload") == true)
        m.target.url = "ftp://host/x"
        _ = m.update(.key(.character("u")))
        #expect(m.notice?.text.contains("http or https") == true)
    }

    @Test func targetEditorValidates() {
        var m = Fixtures.model()
        _ = m.update(.key(.character("t")))
        _ = m.update(.key(.control("u")))
        type("not a url", into: &m)
        _ = m.update(.key(.enter))
        guard case .editor(let form) = m.overlay else {
            Issue.record("still open")
            return
        }
        #expect(form.error?.contains("invalid URL") == true)
        _ = m.update(.key(.control("u")))
        type("https://api.example.com/ocr", into: &m)
        _ = m.update(.key(.tab))
        _ = m.update(.key(.right))  // POST -> PUT
        _ = m.update(.key(.tab))
        _ = m.update(.key(.right))  // multipart -> base64 JSON
        _ = m.update(.key(.tab))
        _ = m.update(.key(.tab))  // Transfer: single
        _ = m.update(.key(.tab))  // Chunk: auto
        type("RETCODE=0000", into: &m)
        _ = m.update(.key(.tab))
        type("RETMSG", into: &m)
        _ = m.update(.key(.enter))
        #expect(m.overlay == nil)
        #expect(
            m.target
                == Target(
                    url: "https://api.example.com/ocr", method: .put, bodyKind: .base64JSON,
                    expectations: [.init(path: "RETCODE", value: "0000")], messagePath: "RETMSG", retries: 3))
    }

    @Test func bracketsLowerAndRaiseTheBandwidthLimit() {
        var m = Fixtures.model(width: 120, height: 30)
        #expect(m.update(.key(.character("]"))) == [.setLimitRate(nil)], "no limit stays no limit")
        #expect(m.update(.key(.character("["))) == [.setLimitRate(8 << 20)], "nothing runs: 8 MiB/s to start")
        #expect(Fixtures.render(m)[0].hasSuffix("▶ running 0/4 ≤8.00 MiB/s"))
        #expect(Fixtures.render(m).last == " ✔ limit 8.00 MiB/s over every upload ([ lowers, ] raises)")
        #expect(m.update(.key(.character("["))) == [.setLimitRate(4 << 20)])
        #expect(m.update(.key(.character("]"))) == [.setLimitRate(8 << 20)])
        #expect(m.target.limitRate == 8 << 20, "the target keeps it, so S saves it in a profile")
        for _ in 0..<20 { _ = m.update(.key(.character("["))) }
        #expect(m.queue.limitRate == 64 << 10, "no lower than 64 KiB/s")
        for _ in 0..<14 { _ = m.update(.key(.character("]"))) }
        #expect(m.queue.limitRate == 1 << 30)
        #expect(m.update(.key(.character("]"))) == [.setLimitRate(nil)], "past 1 GiB/s the limit is lifted")
        #expect(!Fixtures.render(m)[0].contains("≤"))
        #expect(m.target.limitRate == 0)
        // While uploads run, the first [ starts under what they move together.
        _ = m.update(.engine(.added(Fixtures.task(1, "a.bin", state: .sending, sent: 1, total: 100, speed: 3e6))))
        #expect(m.update(.key(.character("["))) == [.setLimitRate(2 << 20)])
    }

    @Test func engineEventsFillTheTaskListAndTheResponseFollowsTheCursor() {
        var m = Fixtures.model()
        _ = m.update(.engine(.added(Fixtures.task(1, "a.jpg", state: .queued))))
        _ = m.update(.engine(.added(Fixtures.task(2, "b.jpg", state: .queued))))
        #expect(m.tasks.visible == [TaskID(1), TaskID(2)])
        #expect(m.responseTask == TaskID(1))
        _ = m.update(.engine(.progress(Fixtures.task(2, "b.jpg", state: .sending, sent: 50, total: 100))))
        #expect(m.tasks[TaskID(2)]?.progress.bytesSent == 50)
        m.focus = .tasks
        _ = m.update(.key(.down))
        #expect(m.responseTask == TaskID(2))
        _ = m.update(.engine(.queueChanged(QueueStatus(isPaused: true, concurrency: 5, running: 1, queued: 0))))
        #expect(m.queue.isPaused)
        #expect(m.update(.key(.character("p"))) == [.resume])
        #expect(m.update(.key(.character("+"))) == [.setConcurrency(6)])
        #expect(m.update(.key(.character("c"))) == [.cancel([TaskID(2)])])
        _ = m.update(.engine(.finished(Fixtures.task(2, "b.jpg", state: .failed(.httpStatus(503, message: nil))))))
        #expect(m.update(.key(.character("c"))).isEmpty, "a finished task cannot be cancelled")
        #expect(m.update(.key(.character("r"))) == [.retry(TaskID(2))])
        _ = m.update(.key(.character("d")))
        #expect(m.tasks.visible == [TaskID(1)], "d removes a finished task")
        #expect(m.responseTask == TaskID(1))
    }

    /// Keys typed in one burst each count, though the engine's report of
    /// the first has not come back yet.
    @Test func aBurstOfKeysCountsEveryKey() {
        var m = Fixtures.model()
        m.queue.concurrency = 4
        let effects = "++++".flatMap { m.update(.key(.character($0))) }
        #expect(effects == [.setConcurrency(5), .setConcurrency(6), .setConcurrency(7), .setConcurrency(8)])
        #expect(m.queue.concurrency == 8)
        #expect("pp".flatMap { m.update(.key(.character($0))) } == [.pause, .resume])
    }

    /// Small texts a new user tripped over: each said once, and plainly.
    @Test func cancelledOnceDefaultHintsAndAChangedURLDropsTheProfileName() {
        var m = Fixtures.model()
        _ = m.update(.engine(.added(Fixtures.task(1, "a.jpg", state: .cancelled(reason: "cancelled by the user")))))
        let screen = Fixtures.render(m)
        #expect(screen.contains { $0.contains("no response: cancelled by the user") }, "\(screen)")
        #expect(!screen.joined().contains("cancelled: cancelled"))
        #expect(UploadFailure.cancelled("the engine shut down") == "cancelled: the engine shut down")

        _ = m.update(.staged([StagedFile(path: "/data/身份证 正面.jpg", size: 10)], problems: []))
        m.focus = .files
        _ = m.update(.key(.character("e")))
        guard case .editor(let form)? = m.overlay else {
            Issue.record("e opens no dialog")
            return
        }
        #expect(form.rows.map(\.hint).contains("default: 身份证 正面.jpg"))
        _ = m.update(.key(.escape))

        m.profile = "idcard"
        #expect(Fixtures.render(m)[0].contains("profile idcard"))
        _ = m.update(.key(.character("t")))
        for character in "/v2" { _ = m.update(.key(.character(character))) }
        _ = m.update(.key(.enter))
        #expect(m.target.url.hasSuffix("/v2") && m.profile == nil)
        #expect(!Fixtures.render(m)[0].contains("profile idcard"))
    }

    /// K, J, T on a queued task ask the engine to move it; the list takes
    /// the engine's new order, and the cursor stays on the moved task.
    @Test func queuedTasksMoveAndTheListFollowsTheStartOrder() {
        var m = Fixtures.model()
        for (n, name) in ["a", "b", "c"].enumerated() {
            _ = m.update(.engine(.added(Fixtures.task(n + 1, name, state: .queued))))
        }
        _ = m.update(.engine(.added(Fixtures.task(4, "d", state: .sending))))
        m.focus = .tasks
        m.cursor[.tasks] = 2  // c
        _ = m.update(.key(.down))
        _ = m.update(.key(.up))
        #expect(m.update(.key(.character("K"))) == [.move(TaskID(3), .up)])
        #expect(m.update(.key(.character("J"))) == [.move(TaskID(3), .down)])
        #expect(m.update(.key(.character("T"))) == [.move(TaskID(3), .front)])
        // The engine's answer to T: c before a.
        var c = m.tasks[TaskID(3)]!
        c.sequence = 0
        _ = m.update(.engine(.stateChanged(c)))
        #expect(m.tasks.visible.map { m.tasks[$0]!.request.displayName } == ["c", "a", "b", "d"])
        #expect(m.cursor(.tasks) == 0 && m.selectedTask?.id == TaskID(3), "the cursor moved with it")
        // A task that is not queued does not move, and says why.
        m.cursor[.tasks] = 3
        _ = m.update(.key(.up))
        _ = m.update(.key(.down))
        #expect(m.update(.key(.character("K"))).isEmpty)
        #expect(m.notice == Notice("only a queued task moves: this one is sending", isError: true))
    }

    /// Fourteen tasks are not 28 keystrokes: Space and * mark, c r d act
    /// on the marked ones; C, A, D act on every task.
    @Test func bulkActionsOnMarkedAndOnEveryTask() {
        var m = Fixtures.model()
        let states: [TaskState] = [
            .sending, .queued, .failed(.httpStatus(500, message: nil)), .succeeded,
            .cancelled(reason: "cancelled by the user"), .failed(.connectionFailed("connection refused")),
        ]
        for (n, state) in states.enumerated() {
            _ = m.update(.engine(.added(Fixtures.task(n + 1, "t\(n + 1)", state: state))))
        }
        m.focus = .tasks
        m.cursor[.tasks] = 0
        _ = m.update(.key(.character(" ")))  // t1, to t2
        _ = m.update(.key(.character(" ")))  // t2, to t3
        _ = m.update(.key(.character(" ")))  // t3
        #expect(m.markedTasks == [TaskID(1), TaskID(2), TaskID(3)])
        let screen = Fixtures.render(m)
        #expect(screen.contains { $0.contains("● t1") } && screen.contains { $0.contains("3 marked · ") })
        #expect(m.update(.key(.character("c"))) == [.cancel([TaskID(1), TaskID(2)])], "t3 has finished")
        #expect(m.markedTasks.isEmpty && m.notice == Notice("cancelling 2 tasks"))
        // * marks every task shown; r retries the failed and cancelled among them.
        _ = m.update(.key(.character("*")))
        #expect(m.markedTasks.count == 6)
        #expect(m.update(.key(.character("r"))) == [.retry(TaskID(3)), .retry(TaskID(5)), .retry(TaskID(6))])
        // C, A and D: every task, no marks needed.
        #expect(m.update(.key(.character("C"))) == [.cancel([TaskID(1), TaskID(2)])])
        #expect(m.update(.key(.character("A"))) == [.retry(TaskID(3)), .retry(TaskID(5)), .retry(TaskID(6))])
        _ = m.update(.key(.character("D")))
        #expect(m.tasks.order == [TaskID(1), TaskID(2)], "the finished ones went, the others stay")
        #expect(m.notice == Notice("removed 4 finished tasks, 2 not finished kept"))
    }

    /// What u queued is selected (the Response pane follows it), and Esc
    /// on the filter keeps the task that was selected.
    @Test func aNewTaskIsSelectedAndTheFilterKeepsTheSelection() {
        var m = Fixtures.busyModel()
        m.focus = .tasks
        m.cursor[.tasks] = 0
        _ = m.update(.key(.down))
        _ = m.update(.key(.up))
        #expect(m.responseTask == TaskID(1))
        _ = m.update(.key(.character("U")))
        _ = m.update(.engine(.added(Fixtures.task(7, "身份证 正面.jpg", state: .queued))))
        _ = m.update(.engine(.added(Fixtures.task(8, "身份证 反面.jpg", state: .queued))))
        #expect(m.responseTask == TaskID(7) && m.selectedTask?.id == TaskID(7), "the first new task")

        _ = m.update(.key(.character("/")))
        for character in "反面" { _ = m.update(.key(.character(character))) }
        _ = m.update(.key(.enter))
        let shown = m.tasks.visible
        _ = m.update(.key(.character("/")))
        _ = m.update(.key(.escape))
        #expect(m.tasks.visible.count > shown.count)
        #expect(m.selectedTask?.id == m.responseTask && m.responseTask != m.tasks.visible.first, "not the first task")
    }

    /// `x` in the Response pane: the request as it went, its secret header masked.
    @Test func theResponsePaneShowsTheRequestAsItWent() {
        var m = Fixtures.busyModel()
        _ = m.update(.key(.character("U")))
        guard case .upload(let requests, _)? = m.update(.key(.character("U"))).first else {
            Issue.record("U uploads")
            return
        }
        var task = Fixtures.task(9, "身份证 正面.jpg", state: .succeeded)
        task.request = requests[0]
        _ = m.update(.engine(.added(task)))
        m.focus = .response
        _ = m.update(.key(.character("x")))
        let screen = Fixtures.render(m).joined(separator: "\n")
        #expect(screen.contains("> POST http://127.0.0.1:8080/upload"), "\(screen)")
        #expect(screen.contains("> Authorization: Bearer ••••••") && !screen.contains("Bearer abc"))
        #expect(screen.contains(#"> part "user_id" = "42""#))
        _ = m.update(.key(.character("x")))
        #expect(!Fixtures.render(m).joined().contains("> POST"))
    }

    /// `v` on a value cut at the pane's edge shows it whole, wrapped, in a dialog.
    @Test func aLongValueIsReadWholeWithV() {
        var m = Fixtures.model(width: 80, height: 24)
        let long = (1...40).map { "word\($0)" }.joined(separator: " ")
        let task = Fixtures.task(
            1, "a.jpg", state: .succeeded, response: Fixtures.jsonResponse(#"{"RETMSG":"\#(long)","end":"ZZZ"}"#))
        _ = m.update(.engine(.added(task)))
        m.focus = .response
        let before = Fixtures.render(m).joined(separator: "\n")
        #expect(before.contains("word1 ") && !before.contains("word40"), "cut at the pane's edge")
        _ = m.update(.key(.down))  // $
        _ = m.update(.key(.down))  // $.RETMSG
        _ = m.update(.key(.character("v")))
        guard case .value(let title, _, _)? = m.overlay else {
            Issue.record("v opens no dialog")
            return
        }
        #expect(title == "$.RETMSG")
        let screen = Fixtures.render(m).joined(separator: "\n")
        #expect(screen.contains("word40") && screen.contains("word1 "), "\(screen)")
        _ = m.update(.key(.escape))
        #expect(m.overlay == nil)
        #expect(TextWidth.wrap("身份证正面", toColumns: 5) == ["身份", "证正", "面"], "a wide character is never split")
        #expect(TextWidth.wrap("ab cd efgh", toColumns: 7) == ["ab cd ", "efgh"], "broken after a space")
    }

    /// `M`: the notices whole, newest last, though the bottom line cut them.
    @Test func theMessageLogKeepsLongNoticesWhole() {
        var m = Fixtures.model(width: 80, height: 24)
        let long =
            "staged earlier but not restaged: "
            + (1...12).map { "/data/photo-\($0).jpg: file not found" }
            .joined(separator: "; ")
        m.notice = Notice("staged 2 files")
        m.notice = Notice(long, isError: true)
        #expect(!Fixtures.render(m).joined().contains("photo-12.jpg"), "cut on the bottom line")
        _ = m.update(.key(.character("M")))
        let screen = Fixtures.render(m).joined(separator: "\n")
        #expect(screen.contains("Messages") && screen.contains("✔ staged 2 files"), "\(screen)")
        #expect(screen.contains("/data/photo-12.jpg:") && screen.contains("not found  "), "the end of the long one")
        #expect(m.messages.count == 2)
    }

    /// P pauses one task (the queue runs on), and P on a paused one goes on.
    @Test func pOnATaskPausesItAndGoesOn() {
        var m = Fixtures.busyModel()
        m.focus = .tasks
        m.cursor[.tasks] = 2
        _ = m.update(.key(.up))
        _ = m.update(.key(.down))
        #expect(m.update(.key(.character("P"))) == [.pauseTask(TaskID(3))])
        #expect(m.notice == Notice("build-artifact.tar.gz paused: P goes on, from the start"))
        _ = m.update(
            .engine(
                .finished(
                    Fixtures.task(3, "build-artifact.tar.gz", state: .cancelled(reason: UploadEngine.pausedReason)))))
        let row = Fixtures.render(m).first { $0.contains("build-artifact") && $0.contains("[") } ?? ""
        #expect(row.contains("‖ build-artifact") && row.contains("paused"), "\(row)")
        #expect(m.update(.key(.character("P"))) == [.retry(TaskID(3))])
        m.cursor[.tasks] = 0
        _ = m.update(.key(.down))
        _ = m.update(.key(.up))
        #expect(m.update(.key(.character("P"))).isEmpty, "a finished task does not pause")
    }

    @Test func concurrencyStaysBetweenOneAnd64() {
        var m = Fixtures.model()
        m.queue.concurrency = 1
        #expect(m.update(.key(.character("-"))) == [.setConcurrency(1)])
        m.queue.concurrency = 64
        #expect(m.update(.key(.character("+"))) == [.setConcurrency(64)])
    }

    @Test func filterByNameOrState() {
        var m = Fixtures.busyModel()
        _ = m.update(.key(.character("/")))
        type("身份", into: &m)
        #expect(m.tasks.visible == [TaskID(1), TaskID(2)])
        _ = m.update(.key(.enter))
        #expect(m.filterInput == nil)
        #expect(m.tasks.filter == "身份", "Enter keeps the filter")
        _ = m.update(.key(.character("/")))
        _ = m.update(.key(.control("u")))
        type("sending", into: &m)
        #expect(m.tasks.visible == [TaskID(2), TaskID(3)])
        // A task that finishes leaves the "sending" filter.
        _ = m.update(.engine(.finished(Fixtures.task(3, "build-artifact.tar.gz", state: .succeeded))))
        #expect(m.tasks.visible == [TaskID(2)])
        // The words the help lists: succeeded as well as done; a glob as in the browser.
        for (word, expected) in [
            ("succeeded", [TaskID(1), TaskID(3)]), ("done", [TaskID(1), TaskID(3)]),
            ("running", [TaskID(2)]), ("*.jpg", [TaskID(1), TaskID(2)]), ("build-*.gz", [TaskID(3)]),
        ] {
            _ = m.update(.key(.control("u")))
            type(word, into: &m)
            #expect(m.tasks.visible == expected, "\(word)")
        }
        _ = m.update(.key(.escape))
        #expect(m.tasks.visible.count == 3)
    }

    /// A kept filter clears with Esc in Tasks, and a state filter that lets
    /// tasks go keeps the cursor on the list ("89/86", issue 37 #11).
    @Test func escClearsAKeptFilterAndTheCursorStaysOnTheList() {
        var m = Fixtures.busyModel()
        _ = m.update(.key(.character("/")))
        type("sending", into: &m)
        _ = m.update(.key(.enter))
        _ = m.update(.key(.end))  // the second of two
        #expect(m.cursor(.tasks) == 1)
        _ = m.update(.engine(.finished(Fixtures.task(3, "build-artifact.tar.gz", state: .succeeded))))
        #expect(m.tasks.visible == [TaskID(2)] && m.cursor(.tasks) == 0)
        #expect(Fixtures.render(m).contains { $0.contains("1/1") })
        _ = m.update(.key(.escape))
        #expect(m.tasks.filter.isEmpty && m.tasks.visible.count == 3)
    }

    @Test func quitAsksWhileUploadsRun() {
        var m = Fixtures.busyModel()
        #expect(m.update(.key(.character("q"))).isEmpty)
        #expect(m.overlay == .confirmQuit)
        #expect(Fixtures.render(m).contains { $0.contains("2 uploads are not finished.") })
        // The dialog counts what is unfinished now, not when q was pressed.
        _ = m.update(.engine(.finished(Fixtures.task(2, "身份证 反面.jpg", state: .succeeded))))
        #expect(Fixtures.render(m).contains { $0.contains("1 upload is not finished.") })
        _ = m.update(.engine(.finished(Fixtures.task(3, "build-artifact.tar.gz", state: .succeeded))))
        #expect(Fixtures.render(m).contains { $0.contains("Every upload has finished.") })
        #expect(m.update(.key(.character("n"))).isEmpty)
        #expect(m.overlay == nil)
        #expect(!m.quitting)
        // Nothing runs now: q quits without asking.
        #expect(m.update(.key(.character("q"))) == [.quit])
        #expect(m.quitting)
        var busy = Fixtures.busyModel()
        _ = busy.update(.key(.character("q")))
        #expect(busy.update(.key(.character("y"))) == [.quit] && busy.quitting)

        var idle = Fixtures.model()
        #expect(idle.update(.key(.character("q"))) == [.quit])
        var signalled = Fixtures.busyModel()
        #expect(signalled.update(.interrupted) == [.quit])
        #expect(signalled.interrupted)
    }

    @Test func aThousandTasksScrollByPages() {
        var m = Fixtures.model(width: 80, height: 24)
        for i in 1...1000 { _ = m.update(.engine(.added(Fixtures.task(i, "file-\(i).bin", state: .queued)))) }
        m.focus = .tasks
        let page = ScreenLayout(size: m.size).listHeight(.tasks)
        _ = m.update(.key(.pageDown))
        #expect(m.cursor(.tasks) == page)
        #expect(m.scroll[.tasks] == 1, "scrolls just enough to show the cursor")
        _ = m.update(.key(.character("G")))
        #expect(m.cursor(.tasks) == 999)
        #expect(m.scroll[.tasks] == 1000 - page)
        _ = m.update(.key(.character("g")))
        #expect(m.cursor(.tasks) == 0)
        #expect(m.scroll[.tasks] == 0)
        _ = m.update(.key(.up))
        #expect(m.cursor(.tasks) == 0, "the cursor stops at the top")
    }

    @Test func editingAFilesPart() {
        var m = Fixtures.busyModel()
        _ = m.update(.key(.character("e")))
        _ = m.update(.key(.control("u")))
        type("front", into: &m)
        _ = m.update(.key(.tab))
        type("id-front.jpg", into: &m)
        _ = m.update(.key(.tab))
        type("nonsense", into: &m)
        _ = m.update(.key(.enter))
        guard case .editor(let form) = m.overlay else {
            Issue.record("refused")
            return
        }
        #expect(form.error == "a type looks like image/jpeg")
        _ = m.update(.key(.control("u")))
        type("image/png", into: &m)
        _ = m.update(.key(.enter))
        #expect(m.files[0].fieldName == "front")
        #expect(m.files[0].displayName == "id-front.jpg")
        #expect(m.files[0].effectiveType == "image/png")
        _ = m.update(.key(.character("d")))
        #expect(m.files.count == 2)
    }

    @Test func textInputEditsLikeAShell() {
        var input = TextInput("hello world")
        _ = input.handle(.control("w"))
        #expect(input.text == "hello ")
        _ = input.handle(.home)
        _ = input.handle(.character("¡"))
        #expect(input.text == "¡hello ")
        _ = input.handle(.control("k"))
        #expect(input.text == "¡")
        let long = TextInput("身份证身份证身份证")
        let (shown, cursor) = long.window(width: 8)
        #expect(TextWidth.columns(of: shown) <= 8)
        #expect(cursor <= 7)
    }

    /// `d` in Files removes the marked files when some are marked, as `c`,
    /// `r` and `d` act on marks in Tasks (issue 37 #7); `*` marks all or none.
    @Test func deleteInFilesTakesTheMarkedFiles() {
        var m = Fixtures.model()
        _ = m.update(
            .staged(
                ["a.jpg", "b.jpg", "c.jpg", "d.jpg"].map { StagedFile(path: "/data/" + $0, size: 10) }, problems: []))
        m.focus = .files
        func names() -> [String] { m.files.map(\.displayName) }
        _ = m.update(.key(.home))
        _ = m.update(.key(.character(" ")))  // a marked, on b
        _ = m.update(.key(.down))  // on c
        _ = m.update(.key(.character(" ")))  // c marked, on d
        _ = m.update(.key(.character("d")))
        #expect(names() == ["b.jpg", "d.jpg"], "the marked a and c go; d under the cursor stays")
        #expect(m.notice == Notice("removed 2 marked files"))
        _ = m.update(.key(.character("d")))  // no marks: the one under the cursor
        #expect(names().count == 1)
        _ = m.update(
            .staged(["e.jpg", "f.jpg"].map { StagedFile(path: "/data/" + $0, size: 10) }, problems: []))
        _ = m.update(.key(.character("*")))
        #expect(m.files.allSatisfy(\.marked) && m.notice == Notice("3 files marked: u and d act on them"))
        _ = m.update(.key(.character("*")))
        #expect(m.files.allSatisfy { !$0.marked } && m.notice == Notice("no file marked"))
    }
}
