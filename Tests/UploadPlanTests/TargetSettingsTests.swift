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

    @Test func aJournalTargetWithoutConcurrencyStillDecodes() throws {
        var target = Target(url: "https://a.example/x", retries: 2)
        target.concurrency = 9
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(target)) as! [String: Any]
        object["concurrency"] = nil
        let older = try JSONDecoder().decode(Target.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(older.concurrency == Target.defaultConcurrency)
        #expect(older.retries == 2 && older.url == target.url)
        #expect(try JSONDecoder().decode(Target.self, from: JSONEncoder().encode(target)) == target)
    }
}
