import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// Interrupted tasks (from the journal) and the profile picker and "save as
/// profile": keys in, effects and screens out.
@Suite struct JournalAndProfileModelTests {
    static func interruptedModel() -> AppModel {
        var m = Fixtures.model(width: 100, height: 30)
        m.journaled = true
        for snapshot in [
            Fixtures.task(1, "扫描 1.jpg", state: .interrupted(problem: nil), total: 210_000),
            Fixtures.task(
                2, "扫描 2.jpg",
                state: .interrupted(problem: "扫描 2.jpg changed size since it was queued\n/data/扫描 2.jpg"), total: 4000),
            Fixtures.task(3, "done.bin", state: .succeeded, sent: 10, total: 10),
        ] {
            _ = m.update(.engine(.added(snapshot)))
        }
        m.focus = .tasks
        return m
    }

    func type(_ text: String, into model: inout AppModel) {
        for c in text { _ = model.update(.key(.character(c))) }
    }

    @Test func resumeAllLeavesTheFlaggedOneAndSaysSo() {
        var m = Self.interruptedModel()
        #expect(m.tasks.totals.interrupted == 2 && m.tasks.totals.flagged == 1)
        #expect(m.tasks.unfinishedCount == 0, "interrupted tasks do not hold up a quit")
        #expect(m.update(.key(.character("R"))) == [.resumeInterrupted])
        #expect(
            m.notice?.text
                == "resuming 1 interrupted upload; 1 left alone: a file vanished or changed (r sends one anyway, c drops it)"
        )

        var empty = Fixtures.model()
        #expect(empty.update(.key(.character("R"))) == [])
        #expect(empty.notice?.text == "no interrupted uploads to resume")
    }

    @Test func rSendsAFlaggedTaskOnPurposeAndCDropsOne() {
        var m = Self.interruptedModel()
        m.cursor[.tasks] = 1
        #expect(m.update(.key(.character("r"))) == [.retry(TaskID(2))])
        #expect(m.update(.key(.character("c"))) == [.cancel([TaskID(2)])])
    }

    @Test func interruptedRowsTheirProblemAndTheQuitQuestion() {
        var m = Self.interruptedModel()
        m.cursor[.tasks] = 1
        m.responseTask = TaskID(2)
        let screen = Fixtures.render(m)
        let rows = screen.filter { $0.contains("扫描") }
        #expect(
            rows.contains { $0.contains("↯ 扫描 1.jpg") && $0.contains("to resend") }, "\(screen.joined(separator: "\n"))"
        )
        #expect(rows.contains { $0.contains("! 扫描 2.jpg") && $0.contains("changed") })
        #expect(screen.contains { $0.contains("3 tasks  ✔ 1  ↯ 2") })
        #expect(screen.contains { $0.contains("! 扫描 2.jpg changed size since it was queued") })
        #expect(screen.contains { $0.contains("│  /data/扫描 2.jpg") })
        #expect(screen.contains { $0.contains("R leaves it alone; r sends the file as it is now, c drops it") })
        #expect(screen.last?.contains("R resume all") == true)

        // While a task runs, quitting asks, and says the journal keeps it.
        _ = m.update(.engine(.stateChanged(Fixtures.task(1, "扫描 1.jpg", state: .sending, total: 210_000))))
        _ = m.update(.key(.character("q")))
        #expect(Fixtures.render(m).contains { $0.contains("Quit? It stays in the journal for next time.  y / n") })
        m.journaled = false
        #expect(Fixtures.render(m).contains { $0.contains("Quit and cancel it?  y / n") })
    }

    @Test func thePickerListsProfilesAndEnterLoadsOne() {
        var m = Fixtures.model(width: 100, height: 30)
        #expect(m.update(.key(.character("O"))) == [.loadProfiles])
        #expect(Fixtures.render(m).contains { $0.contains("reading…") })
        let items = [
            ProfileSummary(
                name: "ocr", method: "POST", url: "${BASE}/ocr?token=s3cr3t", fields: ["user_id"],
                headers: ["Authorization"]),
            ProfileSummary(name: "s3", method: "PUT", url: nil, fields: [], headers: []),
        ]
        _ = m.update(.profilesLoaded(items, path: "/home/u/.config/hoist/profiles.toml", error: nil))
        let screen = Fixtures.render(m)
        #expect(
            screen.contains { $0.contains("ocr                POST ${BASE}/ocr?token=\(Secrets.mask)") },
            "\(screen.joined(separator: "\n"))")
        #expect(screen.contains { $0.contains("s3                 PUT (no URL)") })
        #expect(
            screen.contains { $0.contains("field   user_id") }
                && screen.contains { $0.contains("header  Authorization") })
        #expect(m.update(.key(.down)) == [])
        #expect(m.update(.key(.enter)) == [.applyProfile("s3")])
        #expect(m.overlay == nil)

        var loaded = Target(url: "https://api.example.com/ocr", retries: 5)
        loaded.fileField = "image"
        let entries = [FormEntry(kind: .header, name: "Authorization", value: "Bearer x")]
        #expect(
            m.update(.profileLoaded(name: "ocr", target: loaded, entries: entries, concurrency: 2)) == [
                .setConcurrency(2), .setLimitRate(nil),
            ])
        #expect(m.target == loaded && m.entries == entries && m.profile == "ocr")
        #expect(m.notice?.text == "profile ocr: 0 fields, 1 header, POST https://api.example.com/ocr")
    }

    @Test func aBrokenProfilesFileIsShownNotLoaded() {
        var m = Fixtures.model(width: 100, height: 30)
        _ = m.update(.key(.character("O")))
        _ = m.update(.profilesLoaded([], path: "/p.toml", error: "/p.toml:3:7: expected a value"))
        #expect(Fixtures.render(m).contains { $0.contains("✘ /p.toml:3:7: expected a value") })
        #expect(m.update(.key(.enter)) == [])
    }

    @Test func saveAsProfileAsksForAName() {
        var m = Fixtures.model()
        m.entries = [FormEntry(kind: .field, name: "user_id", value: "42")]
        _ = m.update(.key(.character("S")))
        type("my profile", into: &m)
        #expect(m.update(.key(.enter)) == [])
        guard case .editor(let form) = m.overlay else {
            Issue.record("the form stays open")
            return
        }
        #expect(form.error == "a profile name is letters, digits, - and _")
        for _ in 0..<20 { _ = m.update(.key(.backspace)) }
        type("ocr-2", into: &m)
        var saved = m.target
        saved.concurrency = m.queue.concurrency
        #expect(m.update(.key(.enter)) == [.saveProfile(name: "ocr-2", target: saved, entries: m.entries)])
        #expect(m.overlay == nil)
        _ = m.update(.profileSaved(name: "ocr-2", path: "/p.toml", error: nil))
        #expect(m.profile == "ocr-2" && m.notice?.text == "saved profile ocr-2 in /p.toml")
        _ = m.update(.profileSaved(name: "x", path: "/p.toml", error: "/p.toml already has a profile \"x\""))
        #expect(m.notice?.isError == true && m.profile == "ocr-2")
    }
}
