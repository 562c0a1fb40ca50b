import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

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
