import Foundation
import Receiver
import TestSupport
import Testing

/// Every finished task of `hoist send` lands in the history file, secrets
/// masked, and `hoist history` prints it back.
@Suite(.serialized) struct HistoryTests {
    let state = TemporaryDirectory()
    var historyPath: String { state.path + "/hoist/history.jsonl" }

    func send(_ arguments: [String]) async throws -> RunResult {
        try await hoist(["send"] + arguments, environment: ["XDG_STATE_HOME": state.path])
    }

    func history(_ arguments: [String] = []) async throws -> RunResult {
        try await hoist(["history"] + arguments, environment: ["XDG_STATE_HOME": state.path])
    }

    @Test func finishedTasksAreRecordedWithFilesAndMaskedSecrets() async throws {
        try await withReceiver { receiver, _ in
            let dir = TemporaryDirectory()
            let bytes = Array("front of the card".utf8)
            let photo = dir.file("身份证 正面.jpg", bytes)
            let ok = try await send([
                receiver.baseURL.replacingOccurrences(of: "http://", with: "http://bob:pa55word@") + "/upload", "-s",
                "-H", "Authorization: Bearer sekrit-42", "-F", "token=tok-9f8e", "-F", "pin=4711", "--secret", "pin",
                "-F", "user=42", "-F", "front=@\(photo)",
            ])
            #expect(ok.status == 0, "\(ok.stderr)")
            let failed = try await send([receiver.baseURL + "/upload?status=500", "-s", "--retries", "0", "-F", "a=b"])
            #expect(failed.status == 1)

            let raw = try #require(FileManager.default.contents(atPath: historyPath))
            let text = String(decoding: raw, as: UTF8.self)
            for secret in ["pa55word", "sekrit-42", "tok-9f8e", "4711"] {
                #expect(!text.contains(secret), "\(secret) is in the history: \(text)")
            }
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            let first = try jsonObject(lines[0])
            #expect(first["ok"] as? Bool == true)
            #expect(first["status"] as? Int == 200)
            #expect(first["method"] as? String == "POST")
            #expect((first["url"] as? String)?.contains("bob:••••••@") == true)
            #expect((first["time"] as? String)?.hasSuffix("Z") == true)
            let file = try #require((first["files"] as? [[String: Any]])?.first)
            #expect(file["field"] as? String == "front")
            #expect(file["path"] as? String == photo)
            #expect(file["size"] as? Int == bytes.count)
            #expect(file["sha256"] as? String == sha256(bytes))
            let echoed = try #require((first["response"] as? [String: Any])?["fields"] as? [[String: String]])
            #expect(echoed.contains(["name": "user", "value": "42"]), "what is not secret stays readable")
            #expect(echoed.contains(["name": "token", "value": "••••••"]))
            #expect(echoed.contains(["name": "pin", "value": "••••••"]), "a field marked --secret is masked too")

            let second = try jsonObject(lines[1])
            #expect(second["ok"] as? Bool == false)
            #expect(second["status"] as? Int == 500)
            #expect((second["error"] as? String)?.hasPrefix("HTTP 500") == true)

            var info = stat()
            #expect(stat(historyPath, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(stat(state.path + "/hoist", &info) == 0)
            #expect(info.st_mode & 0o777 == 0o700)

            let printed = try await history()
            #expect(printed.status == 0)
            let rows = printed.stdout.split(separator: "\n").map(String.init)
            #expect(rows.contains { $0.contains("✔ 200  POST  身份证 正面.jpg") }, "\(printed.stdout)")
            #expect(rows.contains { $0.contains("✘ 500  POST") })
            #expect(rows.contains { $0.contains("HTTP 500") })
            let last = try await history(["--json", "--limit", "1"])
            #expect(last.stdoutLines.count == 1)
            #expect(try jsonObject(last.stdoutLines[0])["status"] as? Int == 500)
        }
    }

    @Test func aDamagedLineIsSkippedAndNothingIsWrittenWithNoHistory() async throws {
        try await withReceiver { receiver, _ in
            let quiet = try await send([receiver.baseURL + "/upload", "-s", "--no-history", "-F", "a=b"])
            #expect(quiet.status == 0)
            #expect(!FileManager.default.fileExists(atPath: historyPath), "--no-history writes nothing")
            let empty = try await history()
            #expect(empty.status == 0)
            #expect(empty.stderr.contains("no history yet"))

            let ok = try await send([receiver.baseURL + "/upload", "-s", "-F", "a=b"])
            #expect(ok.status == 0)
            let handle = try #require(FileHandle(forWritingAtPath: historyPath))
            handle.seekToEndOfFile()
            handle.write(Data("{\"time\": \"cut off mid-wri".utf8))
            try handle.close()
            let printed = try await history(["--json"])
            #expect(printed.status == 0)
            #expect(printed.stdoutLines.count == 1)
            #expect(printed.stderr.contains("1 unreadable line in \(historyPath) skipped"))
        }
    }
}
