import Foundation
import Glibc
import Receiver
import TestSupport
import Testing

/// The profile picker (`O`) and "save as profile" (`S`) in the real UI, in
/// tmux, with HOME in a temporary folder (so `~/.config/hoist/profiles.toml`
/// is the test's).
@Suite(.serialized) struct ProfileUITests {
    static let original = #"""
        # my endpoints — hand-written, comments must survive
        [verify]
        url = "${BASE}/upload"
        [[verify.fields]]
        name = "user_id"
        value = "42"
        [[verify.headers]]
        name = "Authorization"
        value = "Bearer ${HOIST_TOKEN}"
        """#

    static func startUI(_ home: TemporaryDirectory, environment: String) async throws -> Tmux {
        let tmux = try await Tmux.start(width: 120, height: 40, in: home)
        try await tmux.type("\(environment) \(hoistBinary); echo EXIT=$?")
        try await tmux.press("Enter")
        try await tmux.waitFor("the UI") { $0.text.contains("Hoist") && $0.text.contains("Tasks") }
        return tmux
    }

    @Test func pickALoadSaveAsAndSendWithTheSavedProfile() async throws {
        try await withReceiver { receiver, _ in
            let home = TemporaryDirectory()
            _ = home.directory(".config")
            _ = home.directory(".config/hoist")
            let file = home.file(".config/hoist/profiles.toml", text: Self.original)
            let environment = "BASE=\(receiver.baseURL) HOIST_TOKEN=tok-s3cr3t"
            let tmux = try await Self.startUI(home, environment: environment)
            defer { Task { await tmux.kill() } }

            // O lists the profile as written: no expanded URL, no token.
            try await tmux.press("O")
            var screen = try await tmux.waitFor("the picker") {
                $0.text.contains("Profiles") && $0.text.contains("verify")
            }
            #expect(screen.text.contains("${BASE}/upload"))
            #expect(screen.text.contains("header  Authorization"))
            #expect(!screen.text.contains("tok-s3cr3t"))
            try await tmux.press("Enter")
            screen = try await tmux.waitFor("the profile loaded") {
                $0.text.contains("profile verify:") && $0.text.contains("user_id = 42")
            }
            #expect(screen.text.contains(receiver.baseURL + "/upload"))
            #expect(!screen.text.contains("tok-s3cr3t"), "the token is masked on screen")

            // A field added, then S saves target, fields and headers as a new profile.
            try await tmux.press("f")
            try await tmux.type("note")
            try await tmux.press("Tab")
            try await tmux.type("costs $5 or ${HOME}")
            try await tmux.press("Enter")
            try await tmux.press("S")
            try await tmux.waitFor("the name form") { $0.text.contains("Save as profile") }
            for _ in 0..<10 { try await tmux.press("BSpace") }
            try await tmux.type("verify-2")
            try await tmux.press("Enter")
            screen = try await tmux.waitFor("saved") { $0.text.contains("saved profile verify-2") }
            #expect(screen.text.contains("profile verify-2"))

            // The old text is kept byte for byte; the new table keeps ${HOIST_TOKEN}, not the token.
            let saved = try String(contentsOfFile: file, encoding: .utf8)
            #expect(saved.hasPrefix(Self.original))
            #expect(saved.contains("[verify-2]"))
            #expect(saved.contains(#"value = "Bearer ${HOIST_TOKEN}""#), "\(saved)")
            #expect(saved.contains(#"value = "costs $5 or $${HOME}""#), "\(saved)")
            #expect(saved.contains("\nconcurrency = 4\n") && saved.contains("\nretries = 3\n"), "\(saved)")
            #expect(!saved.contains("tok-s3cr3t"))
            #expect(!saved.contains(receiver.baseURL), "the URL stays ${BASE}/upload")
            var info = stat()
            stat(file, &info)
            #expect(info.st_mode & 0o777 == 0o600)

            // Saving the same name again is refused; the file does not change.
            try await tmux.press("S")
            try await tmux.waitFor("the name form") { $0.text.contains("Save as profile") }
            try await tmux.press("Enter")
            try await tmux.waitFor("the refusal") { $0.text.contains("already has a profile \"verify-2\"") }
            #expect(try String(contentsOfFile: file, encoding: .utf8) == saved)
            try await tmux.press("q")
            try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }

            // The saved profile works for hoist send: token and field arrive expanded.
            let result = try await run(
                hoistBinary, ["send", "--profile", "verify-2", "-s", "-F", "file=@\(file)"],
                environment: hoistEnvironment([
                    "HOME": home.path, "XDG_CONFIG_HOME": "", "BASE": receiver.baseURL, "HOIST_TOKEN": "tok-s3cr3t",
                ]))
            #expect(result.status == 0, "\(result.stderr)")
            let upload = try decode(result.stdout)
            #expect(upload.fields.map { "\($0.name)=\($0.value)" } == ["user_id=42", "note=costs $5 or ${HOME}"])
        }
    }

    @Test func aBrokenProfilesFileIsReportedWithItsLineAndNeverOverwritten() async throws {
        let home = TemporaryDirectory()
        _ = home.directory(".config")
        _ = home.directory(".config/hoist")
        let broken = "[ok]\nurl = \"http://127.0.0.1:9/\"\nretries = \n"
        let file = home.file(".config/hoist/profiles.toml", text: broken)
        let tmux = try await Self.startUI(home, environment: "")
        defer { Task { await tmux.kill() } }
        try await tmux.press("O")
        var screen = try await tmux.waitFor("the parse error") { $0.text.contains("profiles.toml:3:") }
        #expect(screen.text.contains("✘"))
        try await tmux.press("Escape", "S")
        try await tmux.waitFor("the name form") { $0.text.contains("Save as profile") }
        try await tmux.type("new")
        try await tmux.press("Enter")
        screen = try await tmux.waitFor("the refusal") {
            $0.text.contains("profile not saved") && $0.text.contains("left as it is")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == broken)
        try await tmux.press("q")
        try await tmux.waitFor("the shell again") { $0.text.contains("EXIT=0") }
    }
}
