import FormData
import Testing
import UploadEngine
import UploadPlan

/// `Target.requests`, the one path from settings to requests.
struct TargetRequestsTests {
    let target = Target(
        url: "https://api.example.com/ocr", method: .put, expectations: [.init(path: "RETCODE", value: "0000")],
        messagePath: "RETMSG", retries: 5,
        timeouts: Timeouts(connect: .seconds(3), idle: .seconds(4), total: .seconds(5)))
    let entries = [
        FormEntry(kind: .field, name: "user_id", value: "42"),
        FormEntry(kind: .header, name: "Authorization", value: "Bearer t"),
    ]
    let front = FileChoice(path: "/d/身份证 正面.jpg", field: "image")
    let back = FileChoice(path: "/d/back.png", field: "image", filename: "b.png", contentType: "image/x-b")

    func parts(_ request: UploadRequest) -> [String] {
        guard case .multipart(let form) = request.body else { return ["not multipart"] }
        return form.parts.map { part in
            if case .file(let path) = part.content { return "\(part.name)=@\(path);filename=\(part.filename ?? "")" }
            if case .bytes(let bytes) = part.content { return "\(part.name)=\(String(decoding: bytes, as: UTF8.self))" }
            return part.name
        }
    }

    @Test func oneRequestPerFileWithTheFieldsFirstAndThePoliciesOfTheTarget() throws {
        let requests = try target.requests(entries: entries, payload: Payload(files: [front, back]))
        #expect(
            requests.map(parts) == [
                ["user_id=42", "image=@/d/身份证 正面.jpg;filename=身份证 正面.jpg"],
                ["user_id=42", "image=@/d/back.png;filename=b.png"],
            ])
        #expect(requests.map(\.displayName) == ["身份证 正面.jpg", "b.png"])
        let first = requests[0]
        #expect(first.method == .put && first.url == target.url)
        #expect(first.headers == [HeaderField("Authorization", "Bearer t")])
        #expect(first.retry == RetryPolicy(maxRetries: 5))
        #expect(first.timeouts == target.timeouts)
        #expect(first.success == SuccessRule(expectations: target.expectations, messagePath: "RETMSG"))
    }

    @Test func allFilesInOneRequestAndCommandLinePartsInTheirPlace() throws {
        let one = try target.requests(entries: entries, payload: Payload(files: [front, back], oneRequest: true))
        #expect(one.count == 1 && one[0].displayName == "2 files")
        #expect(parts(one[0]).count == 3)
        let interleaved = Payload(items: [.part(.text("a", "1")), .files([front, back]), .part(.text("z", "2"))])
        let each = try target.requests(entries: entries, payload: interleaved)
        #expect(
            each.map(parts) == [
                ["user_id=42", "a=1", "image=@/d/身份证 正面.jpg;filename=身份证 正面.jpg", "z=2"],
                ["user_id=42", "a=1", "image=@/d/back.png;filename=b.png", "z=2"],
            ])
        let fieldsOnly = try target.requests(entries: entries, payload: Payload())
        #expect(fieldsOnly.map(parts) == [["user_id=42"]] && fieldsOnly[0].displayName == "1 field")
    }

    @Test func everyBodyKind() throws {
        var t = target
        t.bodyKind = .base64JSON
        let base64 = try t.requests(entries: entries, payload: Payload(files: [back]))
        #expect(
            base64.map(\.body) == [
                .base64JSON(
                    Base64JSONBody(
                        fileField: "image", path: "/d/back.png", typeValue: "image/x-b",
                        fields: [FormField("user_id", "42")]))
            ])
        t.bodyKind = .raw
        let raw = try t.requests(entries: entries.filter { $0.kind == .header }, payload: Payload(files: [front]))
        #expect(raw.map(\.body) == [.rawFile(path: "/d/身份证 正面.jpg", contentType: nil)])
        t.bodyKind = .urlencoded
        #expect(
            try t.requests(entries: entries, payload: Payload()).map(\.body) == [
                .urlencoded(URLEncodedForm(fields: [FormField("user_id", "42")]))
            ])
        let data = try t.requests(entries: entries, payload: Payload(encodedData: ["a=1", "b=%20"]))
        #expect(
            data.map(\.body) == [
                .bytes(Array("user_id=42&a=1&b=%20".utf8), contentType: "application/x-www-form-urlencoded")
            ])
        t.bodyKind = .json
        #expect(
            try t.requests(entries: entries, payload: Payload()).map(\.body) == [
                .json(Array(#"{"user_id":"42"}"#.utf8))
            ])
        let document = try t.requests(entries: [], payload: Payload(document: Array("[1]".utf8)))
        #expect(document[0].body == .json(Array("[1]".utf8)))
        #expect(document[0].headers == [HeaderField("Accept", "application/json")])
    }

    @Test func refusals() {
        var t = target
        #expect(throws: PlanError.nothingToSend) { try t.requests(entries: [], payload: Payload()) }
        t.bodyKind = .raw
        #expect(throws: PlanError.cannotSendFields(.raw, names: ["user_id"])) {
            try t.requests(entries: entries, payload: Payload(files: [front]))
        }
        #expect(throws: PlanError.needsFile(.raw)) { try t.requests(entries: [], payload: Payload()) }
        t.bodyKind = .base64JSON
        #expect(throws: PlanError.onlyTextParts) {
            try t.requests(entries: [], payload: Payload(items: [.part(.file("x", path: "/x")), .files([front])]))
        }
        t.bodyKind = .json
        #expect(throws: PlanError.needsFields(.json)) { try t.requests(entries: [], payload: Payload()) }
        #expect(throws: PlanError.cannotSendFields(.json, names: ["user_id"])) {
            try t.requests(entries: entries, payload: Payload(document: Array("{}".utf8)))
        }
        t.url = ""
        #expect(throws: PlanError.noURL) { try t.requests(entries: entries, payload: Payload()) }
        t.url = "ftp://x/y"
        #expect(throws: (any Error).self) { try t.requests(entries: entries, payload: Payload()) }
    }
}
