import Foundation
import Receiver
import TestSupport
import Testing

/// `--each` and `--after-success`: a task per file, in the order given, each after the one before.
extension SendCommandTests {
    @Test func eachMakesOneTaskPerFileWithTheOtherFields() async throws {
        try await withReceiver { receiver, saved in
            let dir = TemporaryDirectory()
            var expected: [String: String] = [:]
            for index in 0..<50 {
                var generator = SeededGenerator(state: UInt64(index))
                let bytes = randomBytes(1000 + index, using: &generator)
                dir.file("img-\(index).png", bytes)
                expected["img-\(index).png"] = sha256(bytes)
            }
            dir.file("skip.txt", text: "not matched")
            let result = try await hoist([
                "send", receiver.baseURL + "/upload", "--json", "--concurrency", "8", "-F", "album=holiday", "--each",
                "image=@\(dir.path)/*.png",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = try result.stdoutLines.map(jsonObject)
            #expect(lines.count == 50)
            var seen: [String: String] = [:]
            for line in lines {
                #expect(line["ok"] as? Bool == true)
                #expect(line["status"] as? Int == 200)
                #expect(line["attempts"] as? Int == 1)
                #expect((line["bytes_sent"] as? Int) == (line["bytes_total"] as? Int))
                let json = try #require(line["json"] as? [String: Any])
                let fields = try #require(json["fields"] as? [[String: String]])
                #expect(fields == [["name": "album", "value": "holiday"]])
                let file = try #require((json["files"] as? [[String: Any]])?.first)
                seen[file["filename"] as! String] = file["sha256"] as? String
            }
            #expect(seen == expected)
            #expect(try FileManager.default.contentsOfDirectory(atPath: saved.path).count == 50)
        }
    }

    @Test func afterSuccessChainsAndStopsAtTheFirstFailure() async throws {
        try await withReceiver(configure: { $0.failFirst = 0 }) { receiver, _ in
            let dir = TemporaryDirectory()
            for name in ["1-front.jpg", "2-back.jpg", "3-selfie.jpg"] { dir.file(name, text: name) }
            let ok = try await hoist([
                "send", receiver.baseURL + "/upload", "--json", "--after-success", "--each", "f=@\(dir.path)/*.jpg",
            ])
            #expect(ok.status == 0, "\(ok.stderr)")
            let order = try ok.stdoutLines.map { try jsonObject($0)["name"] as? String }
            #expect(order == ["1-front.jpg", "2-back.jpg", "3-selfie.jpg"], "finished in chain order")

            let failed = try await hoist([
                "send", receiver.baseURL + "/upload?status=500", "--json", "--retries", "0", "--after-success",
                "--each", "f=@\(dir.path)/*.jpg",
            ])
            #expect(failed.status == 1)
            let lines = try failed.stdoutLines.map(jsonObject)
            #expect(lines.count == 3)
            #expect(lines.map { $0["ok"] as? Bool } == [false, false, false])
            #expect((lines[0]["error"] as? String)?.hasPrefix("HTTP 500") == true)
            #expect((lines[1]["error"] as? String)?.contains("1-front.jpg (task #1) failed") == true)
            #expect(lines[1]["attempts"] as? Int == 0)
            #expect(receiver.requestCount == 4, "3 for the first run, 1 for the second")
        }
    }

    /// --each keeps the order its patterns were given in, a glob's matches
    /// by name; -v prints that order first. 反 (back) sorts before 正
    /// (front), so the front is named first.
    @Test func eachKeepsThePatternOrderAndVerbosePrintsIt() async throws {
        try await withReceiver { receiver, _ in
            let dir = TemporaryDirectory()
            for name in ["身份证 正面.jpg", "身份证 反面.jpg", "b.png", "a.png"] { dir.file(name, text: name) }
            let result = try await hoist([
                "send", receiver.baseURL + "/upload", "--json", "--after-success", "-v", "--each",
                "image=@\(dir.path)/身份证 正面.jpg", "--each", "image=@\(dir.path)/身份证 反面.jpg", "--each",
                "extra=@\(dir.path)/*.png", "--no-history",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            let expected = ["身份证 正面.jpg", "身份证 反面.jpg", "a.png", "b.png"]
            #expect(try result.stdoutLines.map { try jsonObject($0)["name"] as? String } == expected)
            #expect(
                result.stderr.contains(
                    "hoist: 4 tasks, in this order, each after the one before succeeded:\n  1. 身份证 正面.jpg\n"
                        + "  2. 身份证 反面.jpg\n  3. a.png\n  4. b.png\n"), "\(result.stderr)")
        }
    }
}
