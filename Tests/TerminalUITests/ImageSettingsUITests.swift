import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// `I`: how images are prepared, set from the keyboard, and the Files pane
/// showing each image's pixels and what they become.
@Suite struct ImageSettingsUITests {
    func type(_ text: String, into model: inout AppModel) {
        for c in text { _ = model.update(.key(.character(c))) }
    }

    func photoModel() -> AppModel {
        var m = Fixtures.model(width: 120, height: 30)
        _ = m.update(
            .staged(
                [
                    StagedFile(
                        path: "/data/身份证 正面.jpg", size: 3_250_000, fieldName: "image",
                        pixels: PixelSize(width: 4032, height: 3024)),
                    StagedFile(path: "/data/notes.txt", size: 120),
                ], problems: []))
        m.notice = nil
        return m
    }

    @Test func theImageDialogSetsTheTargetsSettingsAndRefusesABadValue() {
        var m = photoModel()
        m.focus = .fields  // outside the Files pane, I sets every image's settings
        _ = m.update(.key(.character("I")))
        guard case .editor(let form)? = m.overlay else {
            Issue.record("I opens no dialog")
            return
        }
        #expect(
            form.title == "Prepare images"
                && form.rows.map(\.label) == [
                    "Quality", "Max dim", "Max bytes", "Format", "Metadata",
                ])
        type("150", into: &m)
        _ = m.update(.key(.enter))
        guard case .editor(let refused)? = m.overlay else {
            Issue.record("a bad quality closed the dialog")
            return
        }
        #expect(refused.error == #"Quality: "150" is not an image quality: give 1 to 100, e.g. 80"#)
        for _ in 0..<3 { _ = m.update(.key(.backspace)) }
        type("50", into: &m)
        _ = m.update(.key(.tab))
        type("2048", into: &m)
        _ = m.update(.key(.enter))
        #expect(m.overlay == nil)
        #expect(m.target.images == ImageSettings(quality: 50, maxDimension: 2048))
    }

    /// In the Files pane, `I` is for the file under the cursor or the
    /// marked ones: their own settings, or none (sent as is), go with them.
    @Test func theImageDialogSetsTheSelectedFilesOwnSettings() throws {
        var m = photoModel()
        m.target.url = "http://127.0.0.1:9/up"
        m.target.images = ImageSettings(maxDimension: 2048)
        _ = m.update(
            .staged(
                [
                    StagedFile(
                        path: "/data/back.jpg", size: 2_000_000, fieldName: "image",
                        pixels: PixelSize(width: 3000, height: 2000))
                ], problems: []))
        #expect(m.focus == .files && m.cursor(.files) == 0)
        _ = m.update(.key(.character("I")))
        guard case .editor(let form)? = m.overlay else {
            Issue.record("I opens no dialog")
            return
        }
        #expect(form.rows.map(\.label) == ["For", "Quality", "Max dim", "Max bytes", "Format", "Metadata"])
        #expect(form.value("For") == "身份证 正面.jpg" && form.value("Max dim") == "2048", "starts from the target's")
        _ = m.update(.key(.tab))
        type("50", into: &m)
        _ = m.update(.key(.tab))
        for _ in 0..<4 { _ = m.update(.key(.backspace)) }
        type("1600", into: &m)
        _ = m.update(.key(.enter))
        #expect(m.overlay == nil)
        #expect(m.files[0].images == .own(ImageSettings(quality: 50, maxDimension: 1600)))
        #expect(m.files[2].images == .likeTarget && m.target.images == ImageSettings(maxDimension: 2048))
        #expect(m.notice?.text == "身份证 正面.jpg: ≤1600 px q50")
        let screen = Fixtures.render(m)
        #expect(screen.contains { $0.contains("4032×3024 → 1600×1200 q50") }, "\(screen)")
        #expect(screen.contains { $0.contains("3000×2000 → 2048×1365") })

        // The other photo, marked: emptied settings send it as it is.
        _ = m.update(.key(.down))
        _ = m.update(.key(.down))
        _ = m.update(.key(.character(" ")))
        _ = m.update(.key(.character("I")))
        guard case .editor(let marked)? = m.overlay else {
            Issue.record("I opens no dialog")
            return
        }
        #expect(marked.value("For") == "back.jpg")
        _ = m.update(.key(.tab))
        _ = m.update(.key(.tab))
        for _ in 0..<4 { _ = m.update(.key(.backspace)) }
        _ = m.update(.key(.enter))
        #expect(m.files[2].images == .asIs)
        #expect(Fixtures.render(m).contains { $0.contains("3000×2000 as is") })

        // u sends every file in one request, each prepared as it says.
        for index in m.files.indices { m.files[index].marked = false }
        m.sendMode = .oneRequest
        let effects = m.update(.key(.character("u")))
        guard case .upload(let requests, _)? = effects.first, let request = requests.first else {
            Issue.record("u queued nothing: \(effects) \(String(describing: m.notice))")
            return
        }
        #expect(request.images == ImageSettings(maxDimension: 2048))
        #expect(request.imageSettings(forFile: "/data/身份证 正面.jpg") == ImageSettings(quality: 50, maxDimension: 1600))
        #expect(request.imageSettings(forFile: "/data/back.jpg") == nil)
        #expect(request.imagesByFile.count == 2, "the text file and the photo like the target are not listed")
    }

    @Test func theFilesPaneShowsThePixelsBeforeAndTheSizeAfter() {
        var m = photoModel()
        #expect(Fixtures.render(m).contains { $0.contains("4032×3024") && !$0.contains("→ 2048") })
        m.target.images = ImageSettings(quality: 80, maxDimension: 2048)
        let before = Fixtures.render(m)
        #expect(
            before.contains { $0.contains("身份证 正面.jpg") } && before.contains { $0.contains("4032×3024 → 2048×1536") })
        var task = Fixtures.task(1, "身份证 正面.jpg", state: .succeeded, sent: 421_000, total: 421_000)
        task.preparedImages = [
            PreparedImage(
                source: "/data/身份证 正面.jpg", path: "/tmp/x/a.jpg", filename: "身份证 正面.jpg",
                contentType: "image/jpeg", width: 2048, height: 1536, bytes: 421_888, originalWidth: 4032,
                originalHeight: 3024, originalBytes: 3_250_000, quality: 80)
        ]
        _ = m.update(.engine(.added(task)))
        _ = m.update(.engine(.finished(task)))
        let after = Fixtures.render(m)
        #expect(after.contains { $0.contains("4032×3024 → 2048×1536 412 KiB") }, "\(after)")
        #expect(after[0].contains("multipart · images ≤2048 px q80"), "\(after[0])")
        #expect(
            after.contains { $0.contains("prepared 身份证 正面.jpg: 4032×3024 3.10 MiB → 2048×1536 412 KiB, q80") },
            "the Response pane says what was sent")
    }
}
