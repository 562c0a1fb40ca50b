import Foundation
import Glibc
import TestSupport
import Testing
import UploadEngine
import UploadPlan

@testable import hoist

/// The files Hoist keeps (profiles, journal, history) and their folders,
/// against a crash, a full disk, a second Hoist and a planted link.
@Suite(.serialized) struct StateFileTests {
    func mode(_ path: String) -> mode_t {
        var info = stat()
        lstat(path, &info)
        return info.st_mode & 0o777
    }

    /// The old fixed `.tmp` name was followed through a link and kept a leftover's mode.
    @Test func anAtomicWriteNeverFollowsALinkNorKeepsALeftoversMode() throws {
        let folder = TemporaryDirectory()
        let victim = folder.file("victim.txt", text: "keep me")
        let path = folder.path + "/profiles.toml"
        symlink(victim, path + ".tmp")
        _ = folder.file("profiles.toml.tmp-old", text: "leftover", mode: 0o644)
        try AtomicFile.write(Array("[a]\n".utf8), to: path)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "[a]\n")
        #expect(mode(path) == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["profiles.toml", "profiles.toml.tmp", "profiles.toml.tmp-old", "victim.txt"])
    }

    /// Eight "save as profile" at once: each reads, adds its table and writes; none is lost.
    @Test func profileSavesAtOnceAllLand() async throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/hoist/profiles.toml"
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try Profile.save(
                        name: "p\(index)", target: Target(url: "https://example.com/\(index)"), entries: [],
                        origin: nil, to: path, environment: [:])
                }
            }
            try await group.waitForAll()
        }
        for index in 0..<8 {
            let profile = try Profile.load("p\(index)", from: path, environment: [:])
            #expect(profile.settings.url == "https://example.com/\(index)")
        }
    }

    /// A failed append (disk full) left half a line: the next entry starts on its own line.
    @Test func anAppendAfterAHalfLineStartsOnAFreshLine() throws {
        let folder = TemporaryDirectory()
        let store = HistoryStore(path: folder.path + "/hoist/history.jsonl")
        try store.append([#"{"n":1}"#])
        let fd = open(store.path, O_WRONLY | O_APPEND)
        _ = write(fd, #"{"n":2,"cut"#, 11)
        close(fd)
        try store.append([#"{"n":3}"#])
        let read = try store.read()
        #expect(read.entries == [.object([.init("n", .number("1"))]), .object([.init("n", .number("3"))])])
        #expect(read.skipped == 1)
    }

    /// Past its size the history moves to history.1.jsonl (the one before is
    /// dropped); reading takes both, `limit` only the end.
    @Test func theHistoryRotatesAndReadsItsEnd() throws {
        let folder = TemporaryDirectory()
        var store = HistoryStore(path: folder.path + "/hoist/history.jsonl")
        store.rotationBytes = 1000
        for index in 0..<200 { try store.append([#"{"n":\#(index),"pad":"xxxxxxxxxxxxxxxxxxxx"}"#]) }
        var info = stat()
        stat(store.path, &info)
        #expect(info.st_size < 1100, "the current file stays near the rotation size")
        #expect(FileManager.default.fileExists(atPath: store.previousPath))
        let numbers = try store.read().entries.map { entry -> Int in
            guard case .object(let members) = entry, case .number(let n)? = members.first?.value else { return -1 }
            return Int(n)!
        }
        #expect(numbers.last == 199)
        #expect(numbers == Array((200 - numbers.count)..<200), "the newest, in order, none twice")
        #expect(numbers.count > 20 && numbers.count <= 40)
        let last = try store.read(limit: 25).entries
        #expect(last.count == 25)
        #expect(last == Array(try store.read().entries.suffix(25)), "the end, across both files")
        #expect(try store.read(limit: 0).entries.isEmpty)
    }

    /// Lines read from the end in blocks are the file's lines.
    @Test func readingTheEndInBlocksFindsWholeLines() throws {
        let folder = TemporaryDirectory()
        var text = ""
        for index in 0..<20_000 { text += "line \(index) " + String(repeating: "x", count: index % 37) + "\n" }
        let path = folder.file("lines.jsonl", text: text + "\n  \nlast without newline")
        let all = try HistoryStore.lines(of: path)
        #expect(all.count == 20_001)
        for count in [1, 5, 3000, 20_001, 50_000] {
            #expect(try HistoryStore.lines(of: path, last: count) == Array(all.suffix(count)))
        }
        #expect(String(decoding: all.last!, as: UTF8.self) == "last without newline")
    }

    @Test func aLinkedOrSharedStateFolderIsRefusedOrTightened() throws {
        let folder = TemporaryDirectory()
        let elsewhere = folder.directory("elsewhere")
        symlink(elsewhere, folder.path + "/hoist")
        let linked = HistoryStore(path: folder.path + "/hoist/history.jsonl")
        #expect(throws: StateFileError.self) { try linked.append(["{}"]) }
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "/history.jsonl"))

        let open = TemporaryDirectory()
        mkdir(open.path + "/hoist", 0o755)
        chmod(open.path + "/hoist", 0o755)
        var warnings: [String] = []
        let saved = XDG.warn
        XDG.warn = { warnings.append($0) }
        defer { XDG.warn = saved }
        try HistoryStore(path: open.path + "/hoist/history.jsonl").append(["{}"])
        #expect(mode(open.path + "/hoist") == 0o700)
        #expect(warnings == ["\(open.path)/hoist was readable by others (mode 755); it is 0700 now"])

        if geteuid() == 0 {
            let theirs = TemporaryDirectory()
            mkdir(theirs.path + "/hoist", 0o700)
            chown(theirs.path + "/hoist", 65534, 65534)
            let error = #expect(throws: StateFileError.self) {
                try HistoryStore(path: theirs.path + "/hoist/history.jsonl").append(["{}"])
            }
            #expect(error?.description.contains("belongs to another user") == true)
        }
    }
}
