import Foundation
import Receiver
import TestSupport
import Testing

/// The same `-F` arguments through curl and through `hoist send`: whatever
/// the two boundaries, the Receiver must see the same parts.
@Suite(.serialized) struct CurlCrossCheckTests {
    static let cases: [[String]] = [
        ["-F", "a=hello", "-F", "f=@photo.jpg"],
        ["-F", "f=@note.txt;type=text/x-custom", "-F", "g=@note.txt;filename=other.txt"],
        ["-F", "files[]=@a.png", "-F", "files[]=@b.png", "-F", "files[]=@photo.jpg"],
        ["-F", "q=\"quoted;value\"", "-F", "h=@note.txt;headers=\"X-A: 1\""],
        ["--form-string", "lit=@x;y", "-F", "empty="],
        ["-F", "id=@身份证 正面.jpg", "-F", "name=张三"],
        ["-F", "c=<note.txt", "-F", "d=@note.txt;type=text/plain;filename=\"n;1.txt\""],
        ["-F", "sneaky=@note.txt;filename=\"we\\\"ird.txt\""],
        ["-F", "page=@index.html", "-F", "doc=@report.pdf"],
        ["-Fa=attached", "-sF", "f=@photo.jpg", "-F", "-dash=x", "--form-string", "c=@d"],
    ]

    @Test(arguments: cases)
    func curlAndHoistSendTheSameParts(_ arguments: [String]) async throws {
        let dir = TemporaryDirectory()
        dir.file("photo.jpg", [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 3000))
        dir.file("note.txt", text: "a note\nwith two lines\n")
        dir.file("a.png", [0x89, 0x50, 0x4E, 0x47, 1])
        dir.file("b.png", [0x89, 0x50, 0x4E, 0x47, 2])
        dir.file("身份证 正面.jpg", [0xFF, 0xD8, 9, 9])
        dir.file("index.html", text: "<p>hi</p>")
        dir.file("report.pdf", text: "%PDF-1.4")
        try await withReceiver { receiver, _ in
            let url = receiver.baseURL + "/upload"
            let curl = try await run("/usr/bin/curl", ["-s", "-S", url] + arguments, directory: dir.path)
            #expect(curl.status == 0, "curl: \(curl.stderr)")
            let mine = try await run(
                hoistBinary, ["send", url, "-s"] + arguments, directory: dir.path, environment: hoistEnvironment())
            #expect(mine.status == 0, "hoist: \(mine.stderr)")
            let fromCurl = try decode(curl.stdout)
            let fromHoist = try decode(mine.stdout)
            #expect(fromHoist.fields == fromCurl.fields)
            #expect(fromHoist.files.map(\.comparable) == fromCurl.files.map(\.comparable))
            #expect(fromHoist.files.count == fromCurl.files.count)
        }
    }
}

extension ReceivedUpload.File {
    /// Everything but where the Receiver saved it.
    var comparable: String {
        "\(name)|\(filename ?? "-")|\(contentType ?? "-")|\(size)|\(sha256)"
    }
}
