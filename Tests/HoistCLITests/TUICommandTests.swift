import Foundation
import TestSupport
import Testing

@testable import hoist

/// `hoist tui` refuses bad input before it takes the screen, with exit status 2.
@Suite struct TUICommandTests {
    func tui(_ arguments: [String], config: String? = nil) async throws -> RunResult {
        try await hoist(["tui"] + arguments, environment: config.map { ["XDG_CONFIG_HOME": $0] } ?? [:])
    }

    @Test(arguments: [
        (["http://127.0.0.1:9/x", "/no/such/file.jpg"], "file not found: /no/such/file.jpg"),
        // The files after the URL reach the parser as one word (ArgumentRewriter): the first missing
        // one is still the first given, and a run of words that begins with an option's value still
        // has its URL.
        (["http://127.0.0.1:9/x", "/no/such/a.jpg", "/no/such/b.jpg"], "file not found: /no/such/a.jpg"),
        (["--concurrency", "4", "http://127.0.0.1:9/x", "/no/such/c.jpg"], "file not found: /no/such/c.jpg"),
        // A folder is staged whole, a glob is expanded (issue 37 #9): one that matches nothing is refused.
        (["http://127.0.0.1:9/x", "/no/such/*.jpg"], "no file matches /no/such/*.jpg"),
        (["http://exa mple.com/x"], "invalid URL"),
        (["front.jpg"], "file not found: front.jpg"),
        (["ftp://example.com/x"], "http or https"),
        (["http://127.0.0.1:9/x"], "hoist's UI needs a terminal; use `hoist send` in scripts"),
    ])
    func badInputExitsTwoBeforeTheScreenIsTouched(_ arguments: [String], _ message: String) async throws {
        let result = try await tui(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}["), "no escape sequences were written")
    }

    @Test func profilesAreLoadedOrRefusedByName() async throws {
        let config = TemporaryDirectory()
        var result = try await tui(["--profile", "verify"], config: config.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("no profiles file at \(config.path)/hoist/profiles.toml"))

        _ = config.directory("hoist")
        _ = config.file("hoist/profiles.toml", text: "[verify]\nurl = \"http://x\"\nretries = \n")
        result = try await tui(["--profile", "verify"], config: config.path)
        #expect(result.status == 2)
        #expect(
            result.stderr.contains("\(config.path)/hoist/profiles.toml:3:"),
            "a syntax error names its line: \(result.stderr)")

        _ = config.file("hoist/profiles.toml", text: "[verify]\nretries = \"three\"\n")
        result = try await tui(["--profile", "verify"], config: config.path)
        #expect(result.stderr.contains("verify.retries: expected a number"), "stderr: \(result.stderr)")

        _ = config.file(
            "hoist/profiles.toml",
            text: #"""
                [verify]
                url = "http://127.0.0.1:9/ocr"
                method = "put"
                expect = ["RETCODE=0000"]
                message = "RETMSG"
                [[verify.fields]]
                name = "user_id"
                value = "42"
                [[verify.headers]]
                name = "Authorization"
                value = "Bearer x"

                [broken]
                method = "DELETE"

                [badexpect]
                expect = ["=x"]
                """#)
        result = try await tui(["--profile", "nope"], config: config.path)
        #expect(
            result.stderr.contains(#"no profile "nope""#) && result.stderr.contains("it has: badexpect, broken, verify")
        )
        result = try await tui(["--profile", "broken"], config: config.path)
        #expect(
            result.stderr.contains(
                #"profile "broken": method: "DELETE" is not an upload method: use POST, PUT or PATCH"#))
        result = try await tui(["--profile", "badexpect"], config: config.path)
        #expect(
            result.stderr.contains(
                #"profile "badexpect": expect[0]: "=x" is not an expectation: expected key.path=value"#))
        // A good profile gets as far as needing a terminal.
        result = try await tui(["--profile", "verify"], config: config.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("needs a terminal"))
    }
}

/// `ArgumentRewriter` hands the UI's words to the parser as one argument, so
/// it must know which options take the next word as their value: exactly
/// those argument-parser knows (a new one left out would have its value
/// taken as a file).
@Suite struct UIArgumentWordsTests {
    static func optionsWithValues(_ help: String) throws -> Set<String> {
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(help.utf8)) as? [String: Any])
        let command = try #require(tool["command"] as? [String: Any])
        let arguments = command["arguments"] as? [[String: Any]] ?? []
        var found: Set<String> = []
        for argument in arguments where argument["kind"] as? String == "option" {
            for name in argument["names"] as? [[String: Any]] ?? [] {
                let dashes = name["kind"] as? String == "short" ? "-" : "--"
                if let text = name["name"] as? String { found.insert(dashes + text) }
            }
        }
        return found
    }

    @Test func uiOptionsThatTakeAValueAreKnown() throws {
        let known = try Self.optionsWithValues(TUICommand._dumpHelp()).union(Self.optionsWithValues(Hoist._dumpHelp()))
        // argument-parser's own option of the root command, which its dump leaves out.
        #expect(ArgumentRewriter.uiValueOptions == known.union(["--generate-completion-script"]))
    }

    @Test func theUIsWordsKeepTheirOrderAroundItsOptions() {
        let rewritten = ArgumentRewriter.rewrite([
            "https://x/up", "--concurrency", "2", "a.jpg", "-k", "b.jpg", "--", "-c.jpg",
        ])
        #expect(
            rewritten == [
                "--file-list", "https://x/up\u{0}a.jpg\u{0}b.jpg\u{0}-c.jpg", "--target-settings=--concurrency\u{0}2",
                "-k",
            ])
        #expect(
            ArgumentRewriter.rewrite(["tui", "--profile", "ocr", "front.jpg"]) == [
                "tui", "--profile", "ocr", "front.jpg",
            ])
        #expect(
            ArgumentRewriter.rewrite(["--generate-completion-script", "bash"]) == [
                "--generate-completion-script", "bash",
            ])
    }
}
