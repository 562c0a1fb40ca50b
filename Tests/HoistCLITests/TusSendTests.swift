import Foundation
import TestSupport
import Testing

/// `hoist send --tus` against `resumable-upload`, a tus server no one here
/// wrote: what it stored, and what the JSON lines say.
@Suite(.serialized) struct TusSendTests {
    let files = TemporaryDirectory()

    func randomFile(_ name: String, _ size: Int, seed: UInt64) -> (path: String, sha: String) {
        var generator = SeededGenerator(state: seed)
        let bytes = randomBytes(size, using: &generator)
        return (files.file(name, bytes), sha256(bytes))
    }

    @Test func eachFileOfTAndEachIsOneResumableUploadWithItsMetadata() async throws {
        let peer = try await TusPeer.resumableUpload()
        let a = randomFile("身份证 正面.jpg", 1_500_000, seed: 1)
        let b = randomFile("b.bin", 700_000, seed: 2)
        let c = randomFile("c.bin", 10, seed: 3)
        let result = try await hoist([
            "send", "--tus", peer.creationURL, "-T", a.path, "-T", files.path + "/[bc].bin", "-F", "batch=42",
            "--chunk-size", "512K", "--json", "--no-history", "--no-journal",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdoutLines.map(jsonObject)
        #expect(lines.count == 3)
        #expect(Set(lines.compactMap { $0["name"] as? String }) == ["身份证 正面.jpg", "b.bin", "c.bin"])
        for line in lines {
            #expect(line["ok"] as? Bool == true)
            // 201 when creation-with-upload carried the whole file, 204 from the last PATCH.
            #expect([201, 204].contains(line["status"] as? Int ?? 0))
            #expect((line["upload_url"] as? String)?.hasPrefix(peer.creationURL + "/") == true)
            #expect(line["resumed_from"] is NSNull)
        }
        let stored = Set(peer.storedFiles().values.map { sha256($0) })
        #expect(stored.isSuperset(of: [a.sha, b.sha, c.sha]))
        // The metadata the server keeps for one of them.
        let url = try #require(lines.first { $0["name"] as? String == "b.bin" }?["upload_url"] as? String)
        let head = try await run("/usr/bin/env", ["curl", "-sI", "-H", "Tus-Resumable: 1.0.0", url])
        let metadata = head.stdout.split(separator: "\r\n").first { $0.lowercased().hasPrefix("upload-metadata:") }
        #expect(metadata?.contains("filename Yi5iaW4=") == true)
        #expect(metadata?.contains("batch NDI=") == true)
    }

    @Test func eachGlobWorksWithTus() async throws {
        let peer = try await TusPeer.resumableUpload()
        let folder = files.directory("photos")
        var shas: Set<String> = []
        for index in 0..<3 {
            var generator = SeededGenerator(state: UInt64(10 + index))
            let bytes = randomBytes(100_000 + index, using: &generator)
            _ = files.file("photos/\(index).jpg", bytes)
            shas.insert(sha256(bytes))
        }
        let result = try await hoist([
            "send", "--tus", peer.creationURL, "--each", "image=@\(folder)/*.jpg", "--json", "--no-history",
            "--no-journal",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.count == 3)
        #expect(Set(peer.storedFiles().values.map { sha256($0) }).isSuperset(of: shas))
    }

    @Test func badInputIsRefusedBeforeAnythingIsSent() async throws {
        let url = "http://127.0.0.1:9/files"
        let file = files.file("x.bin", text: "x")
        let cases: [([String], String)] = [
            (["--tus", url], "with --tus, give the files with -T FILE or --each name=@GLOB"),
            (["--tus", url, "-T", file, "-F", "doc=@\(file)"], "-F may add metadata only (name=value)"),
            (["--tus", url, "-T", file, "-F", "two words=x"], "must be ASCII with no spaces or commas"),
            (["--tus", url, "-T", files.path + "/missing.bin"], "missing.bin"),
            (["--tus", url, "-T", file, "--chunk-size", "1K"], "1024 bytes is not a chunk size: give 16K to 4G"),
            (["--tus", url, "-T", file, "--chunk-size", "lots"], "\"lots\" is not a chunk size: give auto, bytes"),
            (["--tus", url, "-T", file, "--json", "{}"], "--json cannot be used with it"),
            (["--tus", url, "-T", files.path + "/*.none"], "-T \(files.path)/*.none: no file matches"),
        ]
        for (arguments, expected) in cases {
            let result = try await hoist(["send"] + arguments + ["--no-history", "--no-journal"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
    }

    @Test func aProfileCanMakeTheTargetTus() async throws {
        let peer = try await TusPeer.resumableUpload()
        let config = TemporaryDirectory()
        _ = config.directory("hoist")
        _ = config.file(
            "hoist/profiles.toml",
            text: """
                [vault]
                url = "\(peer.creationURL)"
                transfer = "tus"
                chunk_size = "256K"
                """)
        let file = randomFile("v.bin", 600_000, seed: 9)
        let result = try await hoist(
            ["send", "--profile", "vault", "-T", file.path, "--json", "--no-history", "--no-journal"],
            environment: ["XDG_CONFIG_HOME": config.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try jsonObject(result.stdout)["upload_url"] is String)
        #expect(peer.storedFiles().values.map { sha256($0) }.contains(file.sha))

        _ = config.file("hoist/profiles.toml", text: "[bad]\nurl = \"\(peer.creationURL)\"\ntransfer = \"ftp\"\n")
        let bad = try await hoist(
            ["send", "--profile", "bad", "-T", file.path], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("transfer: \"ftp\" is not a transfer kind: use single or tus"), "\(bad.stderr)")
    }
}
