import ArgumentParser
import FormData
import Foundation
import TerminalUI
import TestSupport
import Testing
import UploadEngine
import UploadPlan

@testable import hoist

/// The same settings given as a profile, as command-line flags and through
/// the UI's dialogs become equal requests, and a bad value is refused in the
/// same words on every path: all three go through `TargetValue` and
/// `Target.requests`.
struct OneTargetModelTests {
    static let profileText = """
        [ocr]
        url = "https://api.example.com/ocr"
        method = "put"
        expect = ["RETCODE=0000"]
        message = "RETMSG"
        retries = 5
        timeout = 120
        connect_timeout = 2.5
        idle_timeout = 7
        [[ocr.fields]]
        name = "user_id"
        value = "42"
        [[ocr.headers]]
        name = "X-Trace"
        value = "abc"

        """

    /// `hoist send ARGUMENTS` as `Hoist.main` parses it: rewritten first (the target options go in one hidden argument).
    static func send(_ arguments: [String]) throws -> SendCommand {
        try SendCommand.parse(Array(ArgumentRewriter.rewrite(["send"] + arguments).dropFirst()))
    }

    /// Requests with the random boundary fixed, so equal uploads compare equal.
    func normalized(_ requests: [UploadRequest]) throws -> [UploadRequest] {
        try requests.map { request in
            var request = request
            if case .multipart(var form) = request.body {
                form.boundary = try Boundary("fixed")
                request.body = .multipart(form)
            }
            return request
        }
    }

    func profile(_ text: String, in directory: TemporaryDirectory) throws -> Profile {
        let path = directory.path + "/profiles.toml"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try Profile.load(String(text.dropFirst().prefix { $0 != "]" }), from: path, environment: [:])
    }

    func type(_ text: String, into model: inout AppModel) {
        for character in text { _ = model.update(.key(.character(character))) }
    }

    /// Opens `t`, sets each named row (others as they are) and saves.
    func editTarget(_ rows: [String: String], choices: [String: Int] = [:], in model: inout AppModel) {
        _ = model.update(.key(.character("t")))
        for label in [
            "URL", "Method", "Body", "Transfer", "Chunk", "Expect", "Message", "Retries", "Field", "Timeout", "Connect",
            "Idle", "Answer", "Endpoint", "Region", "Keys", "Checksum",
        ] {
            if let text = rows[label] {
                _ = model.update(.key(.control("u")))
                type(text, into: &model)
            }
            for _ in 0..<(choices[label] ?? 0) { _ = model.update(.key(.right)) }
            _ = model.update(.key(.tab))
        }
        _ = model.update(.key(.enter))
    }

    func addEntry(_ key: Character, name: String, value: String, in model: inout AppModel) {
        model.focus = .fields
        _ = model.update(.key(.character(key)))
        type(name, into: &model)
        _ = model.update(.key(.tab))
        type(value, into: &model)
        _ = model.update(.key(.enter))
    }

    @Test func theSameSettingsThreeWaysGiveEqualRequests() throws {
        let directory = TemporaryDirectory()
        let front = directory.path + "/身份证 正面.jpg"
        try Data("jpeg".utf8).write(to: URL(fileURLWithPath: front))

        let loaded = try profile(Self.profileText, in: directory)
        let fromProfile = try SendPlan(command: Self.send(["-F", "image=@\(front)"]), profile: loaded)

        let fromFlags = try SendPlan(
            command: Self.send([
                "https://api.example.com/ocr", "-X", "PUT", "--expect", "RETCODE=0000", "--message-path", "RETMSG",
                "--retries", "5", "--timeout", "120", "--connect-timeout", "2.5", "--idle-timeout", "7",
                "-H", "X-Trace: abc", "-F", "user_id=42", "-F", "image=@\(front)",
            ]))

        var model = AppModel(size: Size(width: 120, height: 40), target: Target(), startDirectory: directory.path)
        editTarget(
            [
                "URL": "https://api.example.com/ocr", "Expect": "RETCODE=0000", "Message": "RETMSG", "Retries": "5",
                "Timeout": "120", "Connect": "2.5", "Idle": "7",
            ], choices: ["Method": 1], in: &model)
        #expect(model.overlay == nil, "the dialog took every value")
        addEntry("f", name: "user_id", value: "42", in: &model)
        addEntry("H", name: "X-Trace", value: "abc", in: &model)
        _ = model.update(.staged([StagedFile(path: front, size: 4, fieldName: "image")], problems: []))
        guard case .upload(let fromUI, _) = model.update(.key(.character("u"))).first else {
            Issue.record("u uploads: \(String(describing: model.notice))")
            return
        }

        let expected = try normalized(fromProfile.requests)
        #expect(expected.count == 1)
        #expect(expected.first?.method == .put)
        #expect(
            expected.first?.timeouts == Timeouts(connect: .milliseconds(2500), idle: .seconds(7), total: .seconds(120)))
        #expect(try normalized(fromFlags.requests) == expected)
        #expect(try normalized(fromUI) == expected)
    }

    @Test func anS3TargetThreeWaysGivesEqualRequests() throws {
        let directory = TemporaryDirectory()
        let file = directory.path + "/nightly.tar"
        try Data("tar".utf8).write(to: URL(fileURLWithPath: file))
        let loaded = try profile(
            """
            [backups]
            transfer = "s3"
            bucket = "my-bucket"
            prefix = "db"
            endpoint = "http://127.0.0.1:9000"
            region = "eu-central-1"
            aws_profile = "work"
            """, in: directory)
        let fromProfile = try SendPlan(command: Self.send(["-T", file]), profile: loaded)
        let fromFlags = try SendPlan(
            command: Self.send([
                "s3://my-bucket/db/", "-T", file, "--endpoint", "http://127.0.0.1:9000", "--region", "eu-central-1",
                "--aws-profile", "work",
            ]))
        var model = AppModel(size: Size(width: 120, height: 40), target: Target(), startDirectory: directory.path)
        editTarget(
            [
                "URL": "s3://my-bucket/db/", "Endpoint": "http://127.0.0.1:9000", "Region": "eu-central-1",
                "Keys": "work",
            ], in: &model)
        #expect(model.overlay == nil, "the dialog took every value")
        _ = model.update(.staged([StagedFile(path: file, size: 3, fieldName: "file")], problems: []))
        guard case .upload(let fromUI, _) = model.update(.key(.character("u"))).first else {
            Issue.record("u uploads: \(String(describing: model.notice))")
            return
        }
        let expected = fromProfile.requests
        #expect(expected.count == 1)
        guard let settings = expected.first?.transfer.s3 else {
            Issue.record("not an S3 request: \(expected)")
            return
        }
        #expect(settings.location == S3Location(bucket: "my-bucket", key: "db/nightly.tar"))
        #expect(settings.endpoint == S3Endpoint(url: "http://127.0.0.1:9000", region: "eu-central-1"))
        #expect(settings.profile == "work")
        #expect(expected.first?.url == "http://127.0.0.1:9000/my-bucket/db/nightly.tar")
        #expect(fromFlags.requests == expected)
        #expect(fromUI == expected)
    }

    @Test func theCommandLineWinsOverTheProfileValueByValue() throws {
        let directory = TemporaryDirectory()
        let loaded = try profile(Self.profileText, in: directory)
        let plan = try SendPlan(
            command: Self.send(["--retries", "0", "-H", "x-trace: mine", "-F", "user_id=7", "-F", "a=b"]),
            profile: loaded)
        let request = try #require(plan.requests.first)
        #expect(request.url == "https://api.example.com/ocr" && request.method == .put)
        #expect(request.retry.maxRetries == 0)
        #expect(request.headers == [HeaderField("x-trace", "mine")])
        guard case .multipart(let form) = request.body else {
            Issue.record("multipart")
            return
        }
        #expect(form.parts.map(\.name) == ["user_id", "a"])
    }

    @Test func theProfilesBodyKindAppliesWhenTheCommandLineGivesNoBody() throws {
        let directory = TemporaryDirectory()
        let loaded = try profile(
            "[form]\nurl = \"https://a.example/x\"\nbody = \"urlencoded\"\n[[form.fields]]\nname = \"a b\"\nvalue = \"1&2\"\n",
            in: directory)
        let plan = try SendPlan(command: Self.send([]), profile: loaded)
        #expect(plan.requests.map(\.body) == [.urlencoded(URLEncodedForm(fields: [FormField("a b", "1&2")]))])
        let overridden = try SendPlan(command: Self.send(["-F", "c=3"]), profile: loaded)
        guard case .multipart(let form) = overridden.requests.first?.body else {
            Issue.record("-F asks for multipart")
            return
        }
        #expect(form.parts.map(\.name) == ["a b", "c"])
    }

    /// One bad value of each kind, as a profile key, an option and a UI row.
    @Test(
        arguments: [
            ("method = \"GET\"", ["-X", "GET"], nil, "\"GET\" is not an upload method: use POST, PUT or PATCH"),
            (
                "retries = 101", ["--retries", "101"], ("Retries", "101"),
                "101 is not a number of retries: give a whole number from 0 to 100"
            ),
            (
                "timeout = -1", ["--timeout=-1"], ("Timeout", "-1"),
                "-1 is not a duration: give seconds above 0, e.g. 30 or 2.5"
            ),
            (
                "idle_timeout = 0", ["--idle-timeout=0"], ("Idle", "0"),
                "0 is not a duration: give seconds above 0, e.g. 30 or 2.5"
            ),
            (
                "expect = [\"=0000\"]", ["--expect", "=0000"], ("Expect", "=0000"),
                "\"=0000\" is not an expectation: expected key.path=value"
            ),
            ("url = \"ftp://x/y\"", ["ftp://x/y"], ("URL", "ftp://x/y"), nil),
        ] as [(String, [String], (String, String)?, String?)])
    func aBadValueIsRefusedInTheSameWordsEverywhere(
        key: String, option: [String], row: (String, String)?, message: String?
    ) throws {
        let directory = TemporaryDirectory()
        let expected: String
        if let message {
            expected = message
        } else {
            do {
                _ = try TargetValue.url("ftp://x/y")
                Issue.record("ftp is refused")
                return
            } catch { expected = error.description }
        }
        let givesURL = key.hasPrefix("url")
        do {
            _ = try profile("[bad]\n\(givesURL ? "" : "url = \"https://a.example/x\"\n")\(key)\n", in: directory)
            Issue.record("profile took \(key)")
        } catch {
            #expect("\(error)".contains(expected), "profile: \(error)")
        }
        do {
            _ = try SendPlan(
                command: Self.send((givesURL ? [] : ["https://a.example/x"]) + ["-F", "a=b"] + option))
            Issue.record("command line took \(option)")
        } catch {
            let text = SendCommand.fullMessage(for: error)
            #expect(text.contains(expected), "command line: \(text)")
        }
        guard let (label, value) = row else { return }
        var model = AppModel(size: Size(width: 120, height: 40), target: Target(), startDirectory: "/")
        editTarget(["URL": "https://a.example/x"].merging([label: value]) { $1 }, in: &model)
        guard case .editor(let form) = model.overlay else {
            Issue.record("the dialog took \(label) = \(value)")
            return
        }
        #expect(form.error == "\(label): \(expected)")
    }

    @Test func aBadHeaderIsRefusedInTheSameWordsEverywhere() throws {
        let directory = TemporaryDirectory()
        let expected = "\"X Trace\" is not a header name: use letters, digits and !#$%&'*+-.^_`|~ only"
        do {
            _ = try profile(
                "[bad]\nurl = \"https://a.example/x\"\n[[bad.headers]]\nname = \"X Trace\"\nvalue = \"1\"\n",
                in: directory)
            Issue.record("profile took the header")
        } catch {
            #expect("\(error)" == "profile \"bad\": headers[0]: \(expected)")
        }
        do {
            _ = try SendPlan(command: Self.send(["https://a.example/x", "-F", "a=b", "-H", "X Trace: 1"]))
            Issue.record("command line took the header")
        } catch {
            #expect(SendCommand.fullMessage(for: error).contains(expected))
        }
        var model = AppModel(size: Size(width: 120, height: 40), target: Target(), startDirectory: "/")
        addEntry("H", name: "X Trace", value: "1", in: &model)
        guard case .editor(let form) = model.overlay else {
            Issue.record("the UI took the header")
            return
        }
        #expect(form.error == expected)
    }
}
