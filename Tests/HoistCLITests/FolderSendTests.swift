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
            #expect(
                send.stderr.contains("2 hidden, 2 symbolic links left out (--hidden, --follow-symlinks to take them)"),
                "\(send.stderr)")
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
            #expect(!everything.stderr.contains("left out"), "\(everything.stderr)")
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

    /// A wildcard in the last component only is matched from the folder's
    /// entries (no stat per match), with glob(3)'s rules: no leading dot
    /// unless asked, folders left out, links followed to what they point at.
    @Test func aGlobInOneFolderMatchesAsGlobDoes() async throws {
        let root = TemporaryDirectory()
        _ = root.directory("d")
        _ = root.directory("d/sub.bin")
        for name in ["a.bin", "b.bin", ".hidden.bin", "c.txt", "x[1].bin", "身份证 正面.bin"] {
            root.file("d/" + name, text: name)
        }
        symlink(root.sub("d/a.bin"), root.sub("d/link-file.bin"))
        symlink(root.sub("d/sub.bin"), root.sub("d/link-dir.bin"))
        func order(_ pattern: String) async throws -> [String] {
            let result = try await hoist(
                [
                    "send", "http://127.0.0.1:9/", "--each", "f=@" + pattern, "-v", "--retries", "0", "--no-history",
                    "--no-journal",
                ])
            return result.stderr.split(separator: "\n").compactMap { line in
                guard let dot = line.firstIndex(of: "."), line.hasPrefix("  "),
                    Int(line[..<dot].trimmingCharacters(in: .whitespaces)) != nil
                else { return nil }
                return String(line[line.index(dot, offsetBy: 2)...])
            }
        }
        let d = root.path + "/d"
        #expect(
            try await order(d + "/*.bin") == ["a.bin", "b.bin", "link-file.bin", "x[1].bin", "身份证 正面.bin"])
        #expect(try await order(d + "/[ab].bin") == ["a.bin", "b.bin"])
        #expect(try await order(d + "/.*.bin") == [])  // one file: listed only for two or more
        let one = try await hoist(
            [
                "send", "http://127.0.0.1:9/", "--each", "f=@\(d)/.*.bin", "-v", "--retries", "0", "--no-history",
                "--no-journal",
            ])
        #expect(one.stderr.contains("file \(d)/.hidden.bin as \".hidden.bin\""), "\(one.stderr)")
        let none = try await hoist(["send", "http://127.0.0.1:9/", "--each", "f=@\(d)/*.none"])
        #expect(none.status == 2 && none.stderr.contains("no file matches"), "\(none.stderr)")
    }

    /// A folder where a file goes is refused before anything is sent, with
    /// the option that sends the files in it (issue 37 #9), quoted for the shell.
    @Test func aFolderGivenAsAFileNamesTheGlobThatSendsIt() async throws {
        let root = TemporaryDirectory()
        let folder = root.directory("it's 身份证")
        root.file("it's 身份证/a.jpg", text: "a")
        let quoted = "'\(folder.replacing("'", with: "'\\''"))/**'"
        for (arguments, hint) in [
            (["-T", folder], "-T \(quoted)"),
            (["-F", "card=@\(folder)/"], "--each 'card=@\(folder.replacing("'", with: "'\\''"))/**'"),
            (["--each", "card=@\(folder)"], "--each 'card=@\(folder.replacing("'", with: "'\\''"))/**'"),
            (["--tus", "-T", folder], "-T \(quoted)"),
        ] {
            let result = try await hoist(
                ["send", "http://127.0.0.1:9/up"] + arguments + ["--no-history", "--no-journal"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.contains("is a folder: to send the files in it and its subfolders, give \(hint)"),
                "\(arguments): \(result.stderr)")
        }
    }
}
