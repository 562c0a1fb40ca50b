import Foundation
import Receiver
import TestSupport
import Testing

/// Input `hoist send` refuses before it sends anything: exit 2, and a message that says why.
extension SendCommandTests {
    @Test(arguments: [
        (["send", "http://127.0.0.1:9/", "-F", "noequals"], "bad -F argument"),
        (
            ["send", "http://127.0.0.1:9/", "-F", "f=@/no/such/file.jpg"],
            "file not found: /no/such/file.jpg (field \"f\")"
        ),
        (["send", "http://127.0.0.1:9/", "-F", "f=@/tmp"], "/tmp is a folder: to send the files in it"),
        // A file sent as the whole body has no field to name.
        (["send", "http://127.0.0.1:9/", "-T", "/no/such/file.bin"], "hoist: file not found: /no/such/file.bin\n"),
        (
            ["send", "--tus", "http://127.0.0.1:9/", "-T", "/tmp"],
            "hoist: /tmp is a folder: to send the files in it and its subfolders, give -T '/tmp/**'\n"
        ),
        // A -F value that starts with a control character stays a -F value, as given, as in curl.
        (
            ["send", "http://127.0.0.1:9/", "-F", "\u{1}string:a=@/no/such/file"],
            #"file not found: /no/such/file (field "\u{01}string:a")"#
        ),
        (["send", "ftp://example.com/", "-F", "a=b"], "the scheme must be http or https"),
        (
            ["send", "example.com/upload", "-F", "a=b"],
            "it has no scheme: add http:// or https:// (https://example.com/upload)"
        ),
        (["send", "not a url", "-F", "a=b"], "invalid URL"),
        (["send", "http://127.0.0.1:9/"], "nothing to send"),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "--json", "{\"x\":1}"], "cannot be combined"),
        (["send", "http://127.0.0.1:9/", "--json", "{broken"], "not valid JSON"),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "-X", "DELETE"], "use POST, PUT or PATCH"),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "-H", "NoColon"], #"is not a header: expected "Name: value""#),
        (["send", "http://127.0.0.1:9/", "--each", "f=@/no/such/dir/*.jpg"], "no file matches"),
        (
            ["send", "http://127.0.0.1:9/", "-F", "a=b", "--expect", "=x"],
            #""=x" is not an expectation: expected key.path=value"#
        ),
        (
            ["send", "http://127.0.0.1:9/", "-F", "a=b", "--concurrency", "0"],
            "0 is not a number of uploads at once: give a whole number, at least 1"
        ),
        (["send", "http://127.0.0.1:9/", "-F", "a=b", "--bogus"], "Unknown option"),
    ])
    func badInputExitsTwoAndSendsNothing(_ arguments: [String], _ message: String) async throws {
        let result = try await hoist(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// `hoist send` is parsed by SendCommand alone first (a quarter of a
    /// one-file send's start-up was parsing from the root); what that parse
    /// refuses is parsed again from the root, so messages still name `hoist send`.
    @Test func usageErrorsAndHelpNameHoistSend() async throws {
        let bad = try await hoist(["send", "http://127.0.0.1:9/", "-F", "a=b", "--bogus"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("Usage: hoist send "), "\(bad.stderr)")
        #expect(bad.stderr.contains("See 'hoist send --help'"), "\(bad.stderr)")
        let help = try await hoist(["send", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: hoist send "), "\(help.stdout)")
        #expect(help.stdout.contains("--limit-rate"), "\(help.stdout)")
        let completion = try await hoist(["send", "--generate-completion-script", "bash"])
        #expect(completion.status == 0)
        #expect(completion.stdout.contains("_hoist()"), "\(completion.stdout.prefix(300))")
    }

    @Test func unreadableFileIsBadInput() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("secret.key", text: "k", mode: 0o000)
        var command = [hoistBinary, "send", "http://127.0.0.1:9/", "-F", "key=@\(path)"]
        if geteuid() == 0 {
            // root reads everything: run the same command as nobody, from a copy nobody can execute.
            let copy = dir.path + "/hoist"
            try FileManager.default.copyItem(atPath: hoistBinary, toPath: copy)
            command = ["--reuid=65534", "--regid=65534", "--clear-groups", copy] + command.dropFirst()
            let result = try await run("/usr/bin/setpriv", command)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("permission denied: \(path) (field \"key\")"), "\(result.stderr)")
        } else {
            let result = try await run(command[0], Array(command.dropFirst()))
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("permission denied: \(path) (field \"key\")"))
        }
    }
}
