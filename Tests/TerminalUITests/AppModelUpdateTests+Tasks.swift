import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// `update` in the Tasks pane and on the queue: engine events, moving, marking, pausing, filtering,
/// scrolling, and the concurrency and bandwidth keys.
extension AppModelUpdateTests {
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
}
