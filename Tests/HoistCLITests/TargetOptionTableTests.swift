import Foundation
import TestSupport
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI
@testable import hoist

/// Every row of `TargetOption.all` works on every path with nothing written
/// for it but the row: its flag on the command line (in each spelling the
/// tokenizer reads), its key in a saved and reloaded profile, its row in the
/// `t` dialog; and a bad value is refused by each in the same words.
@Suite struct TargetOptionTableTests {
    /// A value other than the default, and one the option refuses (`nil`: any text is taken).
    static let examples: [String: (good: [String], bad: String?)] = [
        "method": (["PUT"], "GET"), "body": (["urlencoded"], "xml"), "transfer": (["tus"], "ftp"),
        "chunk_size": (["512K"], "1K"), "expect": (["RETCODE=0000", "data.ok=true"], "no-equals"),
        "message": (["RETMSG"], nil), "retries": (["7"], "101"), "field": (["photo"], ""),
        "timeout": (["2.5"], "0"), "connect_timeout": (["4"], "-1"), "idle_timeout": (["90"], "-3"),
        "answer_timeout": (["600"], "0"),
        "retry_after_sent": (["true"], nil),
        "endpoint": (["http://127.0.0.1:9000"], "ftp://x/"), "region": (["eu-central-1"], nil),
        "aws_profile": (["work"], nil), "concurrency": (["9"], "0"), "limit_rate": (["2M"], "fast"),
        "parallel_parts": (["3"], "17"), "path_style": (["true"], nil), "part_size": (["16M"], "1M"),
        "part_concurrency": (["6"], "0"), "storage_class": (["STANDARD_IA"], "cold storage"),
        "acl": (["public-read"], "everyone"), "checksum": (["md5"], "sha1"),
        "content_type": (["image/jpeg"], nil), "image_quality": (["50"], "101"),
        "image_max_dim": (["1600"], "8"), "image_max_bytes": (["2M"], "10"), "image_format": (["jpeg"], "gif"),
        "image_keep_metadata": (["true"], nil),
    ]

    static func url(for option: TargetOption) -> String {
        switch option.scope {
        case .s3: return "s3://bucket/in/"
        case .objects: return "gs://bucket/in/"
        default: return "https://a.example/upload"
        }
    }

    /// What the command line sets for `arguments`, rewritten as `Hoist.main` does.
    static func flags(_ arguments: [String]) throws -> Target {
        let command = try OneTargetModelTests.send(arguments + ["-F", "a=b"])
        var settings = try command.target.settings()
        settings.url = command.url
        return settings.target
    }

    @Test func everyOptionHasAnExample() {
        #expect(Set(Self.examples.keys) == Set(TargetOption.all.map(\.key)))
    }

    @Test(arguments: TargetOption.all.map(\.key))
    func anOptionGoesTheSameWayEverywhere(_ key: String) throws {
        let option = try #require(TargetOption.named(key))
        let (good, _) = try #require(Self.examples[key])
        let url = Self.url(for: option)
        var expected = Target(url: url)
        try option.setting(good).apply(to: &expected)
        if expected.images?.changesImages == false { expected.images = nil }
        #expect(option.values(in: expected) != nil || key == "image_keep_metadata")

        // The command line, in the spellings the tokenizer reads.
        if let flag = option.flag {
            var spellings: [[String]] = []
            if flag.takesValue {
                spellings.append(good.flatMap { [flag.long, $0] })
                spellings.append(good.map { flag.long + "=" + $0 })
                if let short = flag.short { spellings.append(good.map { "-\(short)\($0)" }) }
            } else {
                spellings.append([flag.long])
            }
            for spelling in spellings {
                var fromFlags = try Self.flags([url] + spelling)
                // A switch for image metadata alone prepares nothing; the profile then keeps nothing either.
                if key == "image_keep_metadata" { fromFlags.images = expected.images }
                #expect(fromFlags == expected, "\(spelling)")
            }
        }

        // A saved profile writes it, and loading gives the same target.
        var withImages = expected
        if key == "image_keep_metadata" { withImages.images = ImageSettings(quality: 50, keepsMetadata: true) }
        let text = Profile.table(name: "p", target: withImages, entries: [], origin: nil)
        #expect(text.contains("\n\(key) = "), "\(text)")
        let folder = TemporaryDirectory()
        let loaded = try Profile.load("p", from: folder.file("profiles.toml", text: text), environment: [:])
        #expect(loaded.settings.target == withImages, "\(text)")

        // The dialog shows it and gives it back.
        if let row = option.row {
            let form = TargetForm.make(expected)
            #expect(form.value(row.label) == good.joined(separator: ", "))
            #expect(try TargetForm.target(from: form, over: Target()).get() == expected)
        }
    }

    @Test(arguments: TargetOption.all.map(\.key))
    func aBadValueIsRefusedInTheSameWordsEverywhere(_ key: String) throws {
        let option = try #require(TargetOption.named(key))
        guard let bad = try #require(Self.examples[key]).bad else { return }
        let words: String
        do {
            _ = try option.setting(bad)
            Issue.record("\(key) took \(bad)")
            return
        } catch { words = error.description }
        if let flag = option.flag, flag.takesValue {
            #expect(throws: (any Error).self) { try Self.flags([Self.url(for: option), flag.long, bad]) }
            do { _ = try Self.flags([Self.url(for: option), flag.long + "=" + bad]) } catch {
                #expect("\(error)" == "\(flag.long): \(words)")
            }
        }
        let type = option.profileType
        let written =
            type == .list
            ? "[\(ProfileTOML.quote(bad))]"
            : type == .text || type == .size
                ? ProfileTOML.quote(bad) : bad
        let folder = TemporaryDirectory()
        let path = folder.file("profiles.toml", text: "[p]\nurl = \"\(Self.url(for: option))\"\n\(key) = \(written)\n")
        do {
            _ = try Profile.load("p", from: path, environment: [:])
            Issue.record("the profile took \(key) = \(written)")
        } catch {
            #expect("\(error)".contains(words), "\(error)")
        }
        if let row = option.row, row.choices == nil {
            var form = TargetForm.make(Target(url: Self.url(for: option)))
            form.rows[form.rows.firstIndex { $0.label == row.label }!].input = .text(TextInput(bad))
            guard case .failure(let refusal) = TargetForm.target(from: form, over: Target()) else {
                if bad.isEmpty { return }  // an emptied row puts the default back
                Issue.record("the dialog took \(key) = \(bad)")
                return
            }
            #expect(refusal.description == "\(row.label): \(words)")
        }
    }
}

private enum ProfileTOML {
    static func quote(_ text: String) -> String { Profile.quote(text) }
}
