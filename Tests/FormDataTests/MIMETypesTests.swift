import TestSupport
import Testing

@testable import FormData

@Suite struct MIMETypesTests {
    @Test(arguments: [
        ("photo.jpg", "image/jpeg"), ("PHOTO.JPEG", "image/jpeg"), ("a.png", "image/png"),
        ("clip.mp4", "video/mp4"), ("song.mp3", "audio/mpeg"), ("doc.pdf", "application/pdf"),
        ("data.json", "application/json"), ("feed.xml", "application/xml"), ("t.csv", "text/csv"),
        ("app.wasm", "application/wasm"), ("src.tar.gz", "application/gzip"), ("a.zip", "application/zip"),
        ("notes.txt", "text/plain"), ("page.html", "text/html"),
        (
            "sheet.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        ), ("pic.webp", "image/webp"),
        ("pic.heic", "image/heic"), ("/some/dir.d/身份证 正面.jpg", "image/jpeg"),
    ])
    func builtInTypes(_ filename: String, _ type: String) {
        #expect(MIMETypes.lookup(filename: filename) == type)
    }

    @Test func unknownOrMissingExtension() {
        #expect(MIMETypes.lookup(filename: "file.zzzunknown") == nil)
        #expect(MIMETypes.lookup(filename: "Makefile") == nil)
        #expect(MIMETypes.lookup(filename: ".bashrc") == nil)
        #expect(MIMETypes.lookup(filename: "trailing.") == nil)
        #expect(MIMETypes.type(forFilename: "file.zzzunknown") == "application/octet-stream")
    }

    @Test func tableIsLargeEnough() {
        #expect(MIMETypes.builtIn.count >= 60)
        #expect(Set(MIMETypes.builtIn.values).count >= 60)
    }

    @Test func systemFileIsMergedWithBuiltInWinning() throws {
        let dir = TemporaryDirectory()
        let path = dir.file(
            "mime.types",
            text: """
                # comment line
                application/x-made-up\tmadeup mup
                image/x-wrong-jpeg   jpg   # a conflicting entry
                text/x-empty-line-follows

                application/x-second madeup
                """)
        let table = MIMETypes.systemTable(path: path)
        #expect(table["madeup"] == "application/x-made-up")
        #expect(table["mup"] == "application/x-made-up")
        #expect(table["jpg"] == "image/x-wrong-jpeg")
        #expect(MIMETypes.lookup(filename: "x.jpg") == "image/jpeg")
    }

    @Test func etcMimeTypesFillsGapsWhenPresent() throws {
        let system = MIMETypes.systemTable(path: "/etc/mime.types")
        try #require(!system.isEmpty, "this machine has no /etc/mime.types")
        let onlyInSystem = try #require(system.keys.sorted().first { MIMETypes.builtIn[$0] == nil })
        #expect(MIMETypes.lookup(filename: "file.\(onlyInSystem)") == system[onlyInSystem])
    }

    /// The name a path is sent and labelled under.
    @Test func baseNameIsTheLastComponent() {
        let cases = [
            ("photos/身份证 正面.jpg", "身份证 正面.jpg"), ("/abs/a.txt", "a.txt"), ("a.txt", "a.txt"),
            ("dir/sub/", "sub"), ("dir//", "dir"), ("/", "/"), ("//", "/"), ("", ""), ("./x", "x"),
        ]
        for (path, name) in cases { #expect(baseName(of: path) == name, "\(path)") }
    }
}
