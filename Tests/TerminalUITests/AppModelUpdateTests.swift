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

    /// The dialog masks a secret value while it is typed, by the Fields
    /// pane's rule; Ctrl-R shows it (issue 37 #11).
    @Test func aSecretValueIsMaskedWhileItIsTyped() {
        var m = Fixtures.model(width: 100, height: 30)
        func screen() -> String { Fixtures.render(m).joined(separator: "\n") }
        _ = m.update(.key(.character("H")))
        type("Authorization", into: &m)
        _ = m.update(.key(.tab))
        type("Bearer s3cr3t", into: &m)
        #expect(!screen().contains("s3cr3t"), "\(screen())")
        #expect(screen().contains("•••••••••••••"))
        #expect(screen().contains("Ctrl-R shows or hides it"))
        _ = m.update(.key(.control("r")))
        #expect(screen().contains("Bearer s3cr3t"))
        _ = m.update(.key(.control("r")))
        #expect(!screen().contains("s3cr3t"))
        _ = m.update(.key(.enter))
        // A name that does not look secret shows its value; an entry made secret with s stays masked.
        _ = m.update(.key(.character("f")))
        type("user_id", into: &m)
        _ = m.update(.key(.tab))
        type("42x", into: &m)
        #expect(screen().contains("42x"))
        _ = m.update(.key(.enter))
        m.focus = .fields
        m.cursor[.fields] = 1
        _ = m.update(.key(.character("s")))
        _ = m.update(.key(.character("e")))
        _ = m.update(.key(.tab))
        #expect(!screen().contains("42x"), "\(screen())")
        #expect(screen().contains("user_id"))
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
}
