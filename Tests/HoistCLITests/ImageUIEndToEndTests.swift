import Foundation
import TestSupport
import Testing

/// Photos staged from the browser, prepare settings set with `I`, and the
/// sizes before and after in the Files pane, as a user sees them in tmux.
@Suite(.serialized) struct ImageUIEndToEndTests {
    @Test func stagePhotosSetThePrepareSettingsAndSeeTheSizes() async throws {
        try await withReceiver { receiver, saved in
            let work = TemporaryDirectory()
            try await Photos.make(width: 4032, height: 3024, at: work.path + "/身份证 正面.jpg")
            try await Photos.make(width: 3000, height: 2000, at: work.path + "/receipt.jpg")
            let tmux = try await Tmux.start(width: 120, height: 40, in: work)
            defer { Task { await tmux.kill() } }
            try await tmux.type("XDG_STATE_HOME=\(work.path)/state \(hoistBinary) tui \(receiver.baseURL)/upload")
            try await tmux.press("Enter")
            try await tmux.waitFor("the UI") { $0.text.contains("no files yet") }

            try await tmux.press("a")
            try await tmux.waitFor("the browser") { $0.text.contains("receipt.jpg") }
            try await tmux.press("*", "a")
            // Stored sideways (EXIF orientation 6): the pane shows them upright.
            try await tmux.waitFor("the photos with their pixels") {
                $0.text.contains("3024×4032") && $0.text.contains("2000×3000")
            }

            // In the Files pane, I is for the file under the cursor; Right makes it every image's.
            try await tmux.press("I")
            try await tmux.waitFor("the prepare dialog") {
                $0.text.contains("Prepare images") && $0.text.contains("receipt.jpg")
            }
            try await tmux.press("Right", "Tab")
            try await tmux.type("60")
            try await tmux.press("Tab")
            try await tmux.type("1600")
            try await tmux.press("Enter")
            try await tmux.waitFor("the sizes they will have") {
                $0.text.contains("3024×4032 → 1200×1600") && $0.text.contains("2000×3000 → 1067×1600")
                    && $0.text.contains("images ≤1600 px q60")
            }
            // The receipt alone, smaller.
            try await tmux.press("I")
            try await tmux.waitFor("the dialog for the receipt") { $0.text.contains("For") }
            try await tmux.press("Tab", "Tab", "BSpace", "BSpace", "BSpace", "BSpace")
            try await tmux.type("800")
            try await tmux.press("Enter")
            try await tmux.waitFor("the receipt's own size") {
                $0.text.contains("2000×3000 → 533×800 q60") && $0.text.contains("3024×4032 → 1200×1600")
            }

            try await tmux.press("U")
            let prepared = #"3024×4032 → 1200×1600 \d+(\.\d+)? KiB"#
            let screen = try await tmux.waitFor("the prepared sizes", timeout: .seconds(60)) { lines in
                lines.text.range(of: prepared, options: .regularExpression) != nil
                    && lines.filter { $0.contains("✔") && $0.contains("100%") }.count >= 2
            }
            #expect(screen.text.contains("2000×3000 → 533×800 "), "\(screen.text)")
            let got = try await Photos.inspect(saved.path + "/身份证 正面.jpg")
            #expect(got["width"] as? Int == 1200 && got["height"] as? Int == 1600 && got["gps"] as? Bool == false)
            let receipt = try await Photos.inspect(saved.path + "/receipt.jpg")
            #expect(receipt["width"] as? Int == 533 && receipt["height"] as? Int == 800, "\(receipt)")
            try await tmux.press("q")
            try await tmux.waitFor("the shell") { $0.last(where: { !$0.isEmpty })?.hasPrefix("$") == true }
        }
    }
}
