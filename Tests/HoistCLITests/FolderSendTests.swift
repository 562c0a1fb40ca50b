import Foundation
import Glibc
import Receiver
import TestSupport
import Testing

/// Whole folders: `--each 'file=@photos/**'` walks them, each file named by
/// its path under the folder, as a browser's folder upload names them.
@Suite(.serialized) struct FolderSendTests {
    /// photos/ with nested folders, a CJK name, hidden files, a link to a
    /// file and a link back up to the folder itself.
    static func tree() -> TemporaryDirectory {
        let root = TemporaryDirectory()
        _ = root.directory("photos")
        _ = root.directory("photos/2026")
        _ = root.directory("photos/2026/june")
        _ = root.directory("photos/.cache")
        root.file("photos/2026/june/a.jpg", text: "a")
        root.file("photos/2026/身份证 正面.jpg", text: "front")
        root.file("photos/top.txt", text: "top")
        root.file("photos/.hidden.jpg", text: "h")
        root.file("photos/.cache/thumb.jpg", text: "t")
        symlink(root.sub("photos/top.txt"), root.sub("photos/link.txt"))
        symlink(root.sub("photos"), root.sub("photos/2026/loop"))
        return root
    }

    func names(_ result: RunResult) throws -> [String] {
        try result.stdoutLines.map(jsonObject).map { line in
            let files = (line["json"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
            return files.first?["filename"] as? String ?? "?"
        }
    }

    @Test func aFolderGoesUpWithPathsRelativeToIt() async throws {
        let root = Self.tree()
        try await withReceiver { receiver, saved in
            let url = receiver.baseURL + "/upload"
            let send = try await hoist(
                [
                    "send", url, "--each", "file=@\(root.path)/photos/**", "--json", "-s", "--no-history", "-v",
                    "--concurrency", "1",
                ])
            #expect(send.status == 0, "\(send.stderr)")
            #expect(try names(send) == ["2026/june/a.jpg", "2026/身份证 正面.jpg", "top.txt"], "sorted by path")
            #expect(send.stderr.contains("2 hidden, 2 symbolic links left out"), "\(send.stderr)")
            #expect(send.stderr.contains("3 tasks, in this order"))
            #expect(JournalTests.savedHashes(saved).count == 3)

            let flat = try await hoist(
                [
                    "send", url, "--each", "file=@\(root.path)/photos/**/*.jpg", "--flat", "--json", "-s",
                    "--no-history", "--concurrency", "1",
                ])
            #expect(try names(flat) == ["a.jpg", "身份证 正面.jpg"], "--flat: base names; **/*.jpg at any depth")

            let everything = try await hoist(
                [
                    "send", url, "--each", "file=@\(root.path)/photos/**", "--hidden", "--follow-symlinks", "--json",
                    "-s", "--no-history", "--concurrency", "1",
                ])
            #expect(everything.status == 0, "\(everything.stderr)")
            #expect(
                try names(everything) == [
                    ".cache/thumb.jpg", ".hidden.jpg", "2026/june/a.jpg", "2026/身份证 正面.jpg", "link.txt", "top.txt",
                ], "the link back up to photos/ is not walked twice")

            // -T takes ** too: a PUT per file, named by its path (the label).
            let put = try await hoist(
                [
                    "send", url, "-T", "\(root.path)/photos/2026/**", "--json", "-s", "--no-history", "--concurrency",
                    "1",
                ])
            #expect(try put.stdoutLines.map(jsonObject).map { $0["name"] as? String } == ["june/a.jpg", "身份证 正面.jpg"])

            let notAFolder = try await hoist(["send", url, "--each", "file=@\(root.path)/nothing/**"])
            #expect(notAFolder.status == 2)
            #expect(notAFolder.stderr.contains("\(root.path)/nothing is not a folder"), "\(notAFolder.stderr)")
        }
    }
}
