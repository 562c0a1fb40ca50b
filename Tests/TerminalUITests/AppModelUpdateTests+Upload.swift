import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// `update` on `u`, `U` and `o`: what is sent, to which target, in which mode.
extension AppModelUpdateTests {
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
}
