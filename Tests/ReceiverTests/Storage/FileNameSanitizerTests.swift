import Foundation
import NIOCore
import TestSupport
import Testing

@testable import Receiver

/// Client filenames made safe to save.
@Suite struct FileNameSanitizerTests {
    @Test(arguments: [
        ("photo.jpg", "photo.jpg"),
        ("../../etc/passwd", "passwd"),
        ("/abs/path/a.txt", "a.txt"),
        ("dir/", "upload"),
        ("..", "upload"),
        ("...", "upload"),
        (".env", "env"),
        ("  spaced name .txt  ", "spaced name .txt"),
        ("a\u{0}b\nc\u{7F}.txt", "a_b_c_.txt"),
        ("C:\\Users\\me\\x.png", "C:_Users_me_x.png"),
        ("", "upload"),
        ("身份证 正面.jpg", "身份证 正面.jpg"),
        // A `/` or `.` followed by a combining mark is one Character, not one scalar.
        ("sub/\u{0301}x.txt", "x.txt"),
        ("../\u{0301}../\u{0301}etc/\u{0301}passwd", "passwd"),
        (".\u{0301}bashrc", "bashrc"),
        (".\u{0301}.\u{0301}", "upload"),
        ("/\u{0301}", "upload"),
        ("/etc/\u{20DD}", "upload"),
        ("a/\u{0}/b\u{0}.txt", "b_.txt"),
        ("e\u{0301}te\u{0301}.txt", "e\u{0301}te\u{0301}.txt"),
    ])
    func sanitizedNames(input: String, expected: String) {
        #expect(FileNameSanitizer.sanitize(input) == expected)
    }

    @Test func noNameHasASlashNulOrALeadingDot() {
        var generator = SeededGenerator(state: 9)
        let pieces = ["/", ".", "..", "\u{0301}", "\u{0}", "\\", " ", "a", "证", "\u{20DD}", "\u{1F600}"]
        for _ in 0..<5_000 {
            let length = Int.random(in: 1...12, using: &generator)
            let input = (0..<length).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined()
            let name = FileNameSanitizer.sanitize(input)
            #expect(!name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0), "\(input.debugDescription)")
            #expect(name.utf8.first != UInt8(ascii: "."), "\(input.debugDescription)")
            #expect(!name.isEmpty && name.utf8.count <= FileNameSanitizer.maxBytes)
        }
    }

    @Test func longNamesAreCutKeepingTheExtension() {
        let long = String(repeating: "证", count: 100) + ".jpeg"  // 305 bytes
        let cut = FileNameSanitizer.sanitize(long)
        #expect(cut.utf8.count <= FileNameSanitizer.maxBytes)
        #expect(cut.hasSuffix("证.jpeg"))
        #expect(FileNameSanitizer.numbered(cut, 12).utf8.count < 255)
        #expect(FileNameSanitizer.sanitize(nil) == "upload")
        #expect(FileNameSanitizer.numbered("archive.tar.gz", 2) == "archive.tar-2.gz")
    }
}
