import Foundation
import Testing
import UploadEngine
import UploadPlan

struct TargetSettingsTests {
    @Test func theUpperSourceWinsValueByValue() throws {
        var profile = TargetSettings(
            url: "https://p.example/u",
            entries: [
                FormEntry(kind: .field, name: "user", value: "p"),
                FormEntry(kind: .field, name: "kept", value: "yes"),
                FormEntry(kind: .header, name: "authorization", value: "Bearer p"),
                FormEntry(kind: .header, name: "X-Kept", value: "1"),
            ])
        try profile.set("method", "put")
        try profile.set("retries", "5")
        try profile.set("timeout", "60")
        var flags = TargetSettings(
            url: "https://c.example/u",
            entries: [
                FormEntry(kind: .header, name: "Authorization", value: "Bearer c"),
                FormEntry(kind: .field, name: "user", value: "c"),
            ])
        try flags.set("retries", "0")
        let merged = flags.over(profile)
        #expect(merged.url == "https://c.example/u")
        #expect(merged.target.method == .put, "not given on the command line: the profile's")
        #expect(merged.target.retries == 0, "0 is a value, not absence")
        #expect(merged.target.timeouts.total == .seconds(60))
        #expect(
            merged.entries.map { "\($0.name)=\($0.value)" } == [
                "kept=yes", "X-Kept=1", "Authorization=Bearer c", "user=c",
            ])
        let target = merged.target
        #expect(target.timeouts == Timeouts(connect: .seconds(10), idle: .seconds(30), total: .seconds(60)))
        #expect(target.concurrency == 4 && target.fileField == "file" && target.bodyKind == .multipart)
    }

    /// A target as Swift's synthesized form wrote it before concurrency and the transfer settings existed, with `more`.
    static func legacyJSON(_ more: String) -> String {
        let timeouts = String(decoding: try! JSONEncoder().encode(Timeouts()), as: UTF8.self)
        return #"{"method":"PUT","bodyKind":"multipart","expectations":[],"retries":2,"fileField":"file","timeouts":"#
            + timeouts + "," + more + "}"
    }

    @Test func aJournalTargetOfEarlierVersionsStillDecodes() throws {
        let older = Self.legacyJSON(#""url":"https://a.example/x""#)
        let target = try JSONDecoder().decode(Target.self, from: Data(older.utf8))
        #expect(target == Target(url: "https://a.example/x", method: .put, retries: 2))
    }

    @Test func theJournalFormIsTheTablesKeys() throws {
        var target = Target(url: "s3://b/in/", retries: 7, concurrency: 9)
        target.images = ImageSettings(quality: 50, keepsMetadata: true)
        target.s3.pathStyle = true
        target.expectations = [try TargetValue.expectation("RETCODE=0000")]
        let data = try JSONEncoder().encode(target)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let options = try #require(object["options"] as? [String: [String]])
        #expect(options["retries"] == ["7"] && options["image_quality"] == ["50"] && options["path_style"] == ["true"])
        #expect(options["expect"] == ["RETCODE=0000"] && options["part_size"] == nil, "defaults are left out")
        #expect(try JSONDecoder().decode(Target.self, from: data) == target, "images too")
        // A key of a later version is left out; a bad value is refused.
        let later = #"{"url":"https://a.example/x","options":{"retries":["4"],"colour":["blue"]}}"#
        #expect(try JSONDecoder().decode(Target.self, from: Data(later.utf8)).retries == 4)
        let bad = #"{"url":"https://a.example/x","options":{"retries":["many"]}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Target.self, from: Data(bad.utf8)) }
    }
}
