import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// `update` in the Files pane and the file browser: listing, marking, staging, editing and removing files.
extension AppModelUpdateTests {
    @Test func fileBrowserListsFiltersMarksAndStages() {
        var m = Fixtures.model()
        #expect(m.update(.key(.character("a"))) == [.list(directory: "/data")])
        _ = m.update(
            .listed(
                directory: "/data",
                entries: [
                    DirectoryEntry(name: "z.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: "img10.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: "img2.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: ".secret.jpg", isDirectory: false, size: 10),
                    DirectoryEntry(name: "notes.txt", isDirectory: false, size: 10),
                    DirectoryEntry(name: "photos", isDirectory: true),
                ]))
        func names(_ m: AppModel) -> [String] {
            guard case .browser(let b) = m.overlay else { return [] }
            return b.visibleEntries.map(\.name)
        }
        #expect(
            names(m) == ["..", "photos", "img2.jpg", "img10.jpg", "notes.txt", "z.jpg"],
            "dirs first, natural order, hidden not shown")
        _ = m.update(.key(.character(".")))
        #expect(names(m).contains(".secret.jpg"))
        _ = m.update(.key(.character(".")))
        _ = m.update(.key(.character("/")))
        type("*.jpg", into: &m)
        _ = m.update(.key(.enter))
        #expect(names(m) == ["..", "photos", "img2.jpg", "img10.jpg", "z.jpg"], "the glob keeps directories")
        // Space marks a folder whole, says so, and moves on like Space on a file; again unmarks it.
        _ = m.update(.key(.down))  // photos
        _ = m.update(.key(.character(" ")))  // to img2.jpg
        #expect(m.notice == Notice("marked photos/: a stages every file under it"))
        if case .browser(let b) = m.overlay { #expect(b.marked == ["/data/photos"]) }
        #expect(Fixtures.render(m).contains { $0.contains("● photos/") }, "a marked folder shows its mark")
        _ = m.update(.key(.up))
        _ = m.update(.key(.character(" ")))
        if case .browser(let b) = m.overlay { #expect(b.marked.isEmpty) }
        // * marks the files shown, and says the folders were not.
        _ = m.update(.key(.character("*")))
        #expect(m.notice == Notice("marked 3 files (not the 1 folder: Space marks a folder whole)"))
        _ = m.update(.key(.character("*")))
        #expect(m.notice == Notice("unmarked 3 files (not the 1 folder: Space marks a folder whole)"))
        _ = m.update(.key(.home))
        _ = m.update(.key(.down))
        _ = m.update(.key(.down))
        _ = m.update(.key(.character(" ")))  // mark img2.jpg, move to img10
        _ = m.update(.key(.down))  // z.jpg
        _ = m.update(.key(.character(" ")))
        #expect(m.update(.key(.character("a"))) == [.stage(paths: ["/data/img2.jpg", "/data/z.jpg"], field: "file")])
        #expect(m.overlay == nil)
        _ = m.update(
            .staged(
                [StagedFile(path: "/data/img2.jpg", size: 10), StagedFile(path: "/data/z.jpg", size: 10)], problems: [])
        )
        #expect(m.files.map(\.baseName) == ["img2.jpg", "z.jpg"])
        #expect(m.files.map(\.detectedType) == ["image/jpeg", "image/jpeg"])
        #expect(m.notice == Notice("staged 2 files"))
        _ = m.update(
            .staged(
                [StagedFile(path: "/data/photos/2026/a.jpg", size: 10)], problems: [],
                folders: ["photos/: 1 file (2 hidden left out)"]))
        #expect(m.notice == Notice("staged 1 file · photos/: 1 file (2 hidden left out)"))
    }

    @Test func browserEntersDirectoriesAndGoesUp() {
        var m = Fixtures.model()
        _ = m.update(.key(.character("a")))
        _ = m.update(.listed(directory: "/data", entries: [DirectoryEntry(name: "photos", isDirectory: true)]))
        _ = m.update(.key(.down))
        #expect(m.update(.key(.enter)) == [.list(directory: "/data/photos")])
        #expect(m.update(.key(.backspace)) == [.list(directory: "/data")])
        _ = m.update(.listingFailed(directory: "/data", error: "cannot open /data: Permission denied"))
        guard case .browser(let b) = m.overlay else {
            Issue.record("browser open")
            return
        }
        #expect(b.error == "cannot open /data: Permission denied")
        #expect(FileBrowser.parent(of: "/data") == "/")
        #expect(FileBrowser.parent(of: "/") == "/")
    }

    @Test func stagingProblemsAreShown() {
        var m = Fixtures.model()
        _ = m.update(.staged([], problems: ["is a directory: /tmp (field \"file\")"]))
        #expect(m.notice == Notice("is a directory: /tmp (field \"file\")", isError: true))
    }

    @Test func editingAFilesPart() {
        var m = Fixtures.busyModel()
        _ = m.update(.key(.character("e")))
        _ = m.update(.key(.control("u")))
        type("front", into: &m)
        _ = m.update(.key(.tab))
        type("id-front.jpg", into: &m)
        _ = m.update(.key(.tab))
        type("nonsense", into: &m)
        _ = m.update(.key(.enter))
        guard case .editor(let form) = m.overlay else {
            Issue.record("refused")
            return
        }
        #expect(form.error == "a type looks like image/jpeg")
        _ = m.update(.key(.control("u")))
        type("image/png", into: &m)
        _ = m.update(.key(.enter))
        #expect(m.files[0].fieldName == "front")
        #expect(m.files[0].displayName == "id-front.jpg")
        #expect(m.files[0].effectiveType == "image/png")
        _ = m.update(.key(.character("d")))
        #expect(m.files.count == 2)
    }

    /// `d` in Files removes the marked files when some are marked, as `c`,
    /// `r` and `d` act on marks in Tasks (issue 37 #7); `*` marks all or none.
    @Test func deleteInFilesTakesTheMarkedFiles() {
        var m = Fixtures.model()
        _ = m.update(
            .staged(
                ["a.jpg", "b.jpg", "c.jpg", "d.jpg"].map { StagedFile(path: "/data/" + $0, size: 10) }, problems: []))
        m.focus = .files
        func names() -> [String] { m.files.map(\.displayName) }
        _ = m.update(.key(.home))
        _ = m.update(.key(.character(" ")))  // a marked, on b
        _ = m.update(.key(.down))  // on c
        _ = m.update(.key(.character(" ")))  // c marked, on d
        _ = m.update(.key(.character("d")))
        #expect(names() == ["b.jpg", "d.jpg"], "the marked a and c go; d under the cursor stays")
        #expect(m.notice == Notice("removed 2 marked files"))
        _ = m.update(.key(.character("d")))  // no marks: the one under the cursor
        #expect(names().count == 1)
        _ = m.update(
            .staged(["e.jpg", "f.jpg"].map { StagedFile(path: "/data/" + $0, size: 10) }, problems: []))
        _ = m.update(.key(.character("*")))
        #expect(m.files.allSatisfy(\.marked) && m.notice == Notice("3 files marked: u and d act on them"))
        _ = m.update(.key(.character("*")))
        #expect(m.files.allSatisfy { !$0.marked } && m.notice == Notice("no file marked"))
    }
}
