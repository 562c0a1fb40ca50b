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
    ])
    func sanitizedNames(input: String, expected: String) {
        #expect(FileNameSanitizer.sanitize(input) == expected)
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
