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
