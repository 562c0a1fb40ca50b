import FormData
import Foundation
import Glibc
import TestSupport
import Testing

/// curl's `-F` / `--form-string` grammar (src/tool_formparse.c), value by
/// value; the headers are in `CurlFormHeadersTests`, the cross-check against
/// the real /usr/bin/curl in `CurlFormArgumentCrossCheckTests`.
@Suite struct CurlFormArgumentTests: CurlFormParsing {
    // MARK: the value

    @Test func textField() throws {
        #expect(try parse("greeting=hello") == CurlFormArgument(name: "greeting", source: .text("hello")))
    }

    @Test func nameIsEverythingBeforeTheFirstEquals() throws {
        #expect(try parse("a=b=c") == CurlFormArgument(name: "a", source: .text("b=c")))
        // The name is never unquoted or trimmed.
        #expect(try parse("we\"ird name =1").name == "we\"ird name ")
    }

    @Test func emptyNameIsAllowed() throws {
        #expect(try parse("=anon") == CurlFormArgument(name: "", source: .text("anon")))
        #expect(try parse("=@a.txt") == CurlFormArgument(name: "", source: .file(path: "a.txt")))
        #expect(try parse("a=") == CurlFormArgument(name: "a", source: .text("")))
    }

    @Test func spacesAroundAnUnquotedValueAreStripped() throws {
        #expect(try parse("a=  padded value \t ").source == .text("padded value"))
        #expect(try parse("a= \"  q  \" ").source == .text("  q  "))
        // Only a value whose first byte is @ or < is a file: a space in front makes it text.
        #expect(try parse("a= @x").source == .text("@x"))
        #expect(try parse("a= <x").source == .text("<x"))
    }

    @Test func fileUpload() throws {
        let argument = try parse("image=@photos/front.jpg")
        #expect(argument == CurlFormArgument(name: "image", source: .file(path: "photos/front.jpg")))
        #expect(argument.part() == Part.file("image", path: "photos/front.jpg"))
        #expect(argument.part().filename == "front.jpg")
        // Spaces after @ and after the path are stripped.
        #expect(try parse("f=@ a.txt ;type=text/x").source == .file(path: "a.txt"))
    }

    @Test func fileAsText() throws {
        let argument = try parse("body=<notes.txt")
        #expect(argument == CurlFormArgument(name: "body", source: .fileAsText(path: "notes.txt")))
        #expect(argument.part() == Part.fileAsText("body", path: "notes.txt"))
        #expect(argument.part().filename == nil)
        #expect(argument.part().contentType == nil)
    }

    @Test func standardInput() throws {
        let upload = try parse("f=@-")
        #expect(upload == CurlFormArgument(name: "f", source: .standardInput))
        // curl: `case TOOLMIME_STDIN: if(!filename) filename = "-";`
        #expect(upload.part() == Part.stream("f", from: .standardInput, filename: "-"))

        let text = try parse("f=<-")
        #expect(text == CurlFormArgument(name: "f", source: .standardInputAsText))
        #expect(text.part() == Part.stream("f", from: .standardInput, filename: nil))

        // curl compares the path after unquoting, so a quoted "-" is stdin too.
        #expect(try parse("f=@\"-\"").source == .standardInput)
        let renamed = try parse("f=@-;filename=up.txt;type=text/x")
        #expect(renamed.part() == Part.stream("f", from: .standardInput, filename: "up.txt", contentType: "text/x"))
    }

    @Test func emptyPathIsRefused() {
        #expect(failure("f=@")?.reason == "expected a file path after '@'")
        #expect(failure("f=@;type=a/b")?.reason == "expected a file path after '@'")
        #expect(failure("f=<")?.reason == "expected a file path after '<'")
    }

    // MARK: modifiers

    @Test func typeAndFilename() throws {
        let argument = try parse("f=@a.jpg;type=image/png;filename=b.png")
        #expect(
            argument
                == CurlFormArgument(
                    name: "f", source: .file(path: "a.jpg"), contentType: "image/png", filename: "b.png"))
        #expect(
            argument.part() == Part.file("f", path: "a.jpg", filename: "b.png", contentType: "image/png"))
        // An empty filename= is sent as filename="".
        #expect(try parse("f=@a.txt;filename=").part().filename == "")
    }

    @Test func modifierNamesAreCaseInsensitive() throws {
        let argument = try parse("a=v;TYPE=text/x-u;FileName=f.bin")
        #expect(argument.contentType == "text/x-u")
        #expect(argument.filename == "f.bin")
    }

    @Test func spacesAroundModifierValues() throws {
        let argument = try parse("a=v;  type= text/x ;filename= sp ace ")
        #expect(argument.contentType == "text/x")
        #expect(argument.filename == "sp ace")
    }

    @Test func textFieldsTakeModifiersToo() throws {
        let argument = try parse("note=value;type=text/x-note;filename=n.txt")
        #expect(
            argument
                == CurlFormArgument(name: "note", source: .text("value"), contentType: "text/x-note", filename: "n.txt")
        )
        let part = argument.part()
        #expect(
            part
                == Part(
                    name: "note", filename: "n.txt", contentType: "text/x-note", content: .bytes(Array("value".utf8))))
    }

    @Test func typeRunsOnOverUnknownModifiers() throws {
        // After type=, a segment that is not filename=, headers= or encoder= is part of the type.
        #expect(try parse("a=v;type=text/plain; charset=utf-8;x=1").contentType == "text/plain; charset=utf-8;x=1")
        #expect(try parse("a=v;type=a/b;type=c/d").contentType == "a/b;type=c/d")
        #expect(try parse("a=v;type=a/b;filename=x;type=c/d").contentType == "c/d")
        #expect(try parse("a=v;type=text/plain; ").contentType == "text/plain; ")
        #expect(try parse("a=v;type=a/b ; ;x").contentType == "a/b ; ;x")
        // The major type is `%127[^/ ]`, so it may hold a ';'.
        #expect(try parse("a=v;type=foo;bar/baz").contentType == "foo;bar/baz")
        // In a text field the type runs past a comma; in a file field a comma starts the next file.
        #expect(try parse("a=v;type=a/b,c").contentType == "a/b,c")
        // type= is not unquoted.
        #expect(try parse("a=v;type=\"a/b\"").contentType == "\"a/b\"")
    }

    @Test func badContentTypeIsRefused() {
        for argument in ["a=v;type=text /plain", "a=v;type=text/", "a=v;type=/x", "a=v;type=plain", "a=v;type="] {
            let reason = failure(argument)?.reason ?? ""
            #expect(reason.contains("is not a valid content type: expected type/subtype"), "\(argument)")
        }
        #expect(
            failure("a=v;type=text /plain")?.reason
                == "type=text /plain is not a valid content type: expected type/subtype, such as type=image/png"
                + " (curl: \"Illegally formatted content-type field\")")
        // sscanf's %127[...]: a major type of 127 bytes fits, 128 does not.
        #expect(throws: Never.self) { try parse("a=v;type=" + String(repeating: "m", count: 127) + "/b") }
        #expect(failure("a=v;type=" + String(repeating: "m", count: 128) + "/b") != nil)
    }

    @Test func unknownModifiersAreSkippedWithAWarning() throws {
        let argument = try parse("a=v;b;x=1")
        #expect(argument.source == .text("v"))
        #expect(
            argument.warnings == [
                "skipped unknown form field modifier 'b' (curl: \"skip unknown form field\")",
                "skipped unknown form field modifier 'x=1' (curl: \"skip unknown form field\")",
            ])
        // A space before '=' makes it unknown, as in curl.
        let spaced = try parse("a=v; headers = X-Q: q")
        #expect(spaced.headers.isEmpty)
        #expect(spaced.warnings.count == 1)
        // Empty segments say nothing.
        #expect(try parse("f=@a.txt;;").warnings.isEmpty)
    }

    @Test func filenameOnAFileAsTextFieldIsIgnored() throws {
        let argument = try parse("f=<a.txt;filename=z")
        #expect(
            argument == CurlFormArgument(name: "f", source: .fileAsText(path: "a.txt"), warnings: argument.warnings))
        #expect(argument.filename == nil)
        #expect(
            argument.warnings == [
                "filename='z' is ignored: a '<file' field is sent as text, without a filename"
                    + " (curl: \"Field file name not allowed here\")"
            ])
    }

    @Test func encoderIsRefused() {
        #expect(
            failure("f=@a.txt;encoder=base64")?.reason
                == "encoder=base64 is not supported: Hoist sends every part's bytes as they are,"
                + " with no Content-Transfer-Encoding; remove ;encoder=")
        #expect(failure("a=v;encoder=quoted-printable") != nil)
        #expect(failure("a=<b.txt;ENCODER=7bit") != nil)
    }

    // MARK: quoting

    @Test func quotedValues() throws {
        #expect(try parse(#"q="a;b,c \"x\" \\ y""#).source == .text(#"a;b,c "x" \ y"#))
        // Only \" and \\ are escapes; any other backslash stays.
        #expect(try parse(#"a="q\"x\\y\nz\t""#).source == .text(#"q"x\y\nz\t"#))
        #expect(
            try parse(#"f=@"a,b;c.txt";filename="r\"n.txt""#)
                == CurlFormArgument(name: "f", source: .file(path: "a,b;c.txt"), filename: "r\"n.txt"))
        #expect(try parse(#"a=v;filename="x;y,z.txt""#).filename == "x;y,z.txt")
        #expect(try parse(#"a=v;headers="X-List: a;b""#).headers == [HeaderField("X-List", "a;b")])
    }

    @Test func textAfterTheClosingQuoteIsDropped() throws {
        let argument = try parse(#"a="abc"def;type=x/y"#)
        #expect(argument.source == .text("abc"))
        #expect(argument.contentType == "x/y")
        #expect(
            argument.warnings == [
                #"ignored what follows the closing quote in '"abc"def'"#
                    + #" (curl: "Trailing data after quoted form parameter")"#
            ])
        // Spaces after the quote are not "data".
        #expect(try parse(#"a="abc"  ;type=x/y"#).warnings.isEmpty)
    }

    @Test func unterminatedQuoteIsSentAsWrittenLikeCurl() throws {
        // curl: "end quote is missing, treat it as non-quoted."
        let text = try parse(#"a="unterminated ;type=x/y"#)
        #expect(text.source == .text(#""unterminated"#))
        #expect(text.contentType == "x/y")
        #expect(
            text.warnings == [#"no closing quote in '"unterminated ': sent as written, quote included, as curl does"#])
        #expect(try parse(#"f=@"my file.jpg"#).source == .file(path: #""my file.jpg"#))
        // Unquoted, a comma splits files again.
        #expect(failure(#"f=@"a,b.jpg"#)?.reason.contains("2 files in one field") == true)
    }

    // MARK: several files, groups

    @Test func severalFilesAreRefusedWithTheFix() {
        #expect(
            failure("f=@a.jpg,b.jpg")?.reason
                == "2 files in one field ('a.jpg', 'b.jpg') are sent by curl as one multipart/mixed part,"
                + " which Hoist does not send; repeat -F with the same name instead: -F 'f=@a.jpg' -F 'f=@b.jpg'"
                + " (a path that contains a comma must be quoted: f=@\"a,b.jpg\")")
        #expect(
            failure(#"f=@"x,1.jpg",b.jpg;type=image/png"#)?.reason.contains(
                #"-F 'f=@"x,1.jpg"' -F 'f=@b.jpg'"#) == true)
        #expect(failure("f=@a.jpg,")?.reason.hasPrefix("2 files in one field ('a.jpg', '')") == true)
        // The type's minor part stops at ',' in a file field.
        #expect(failure("f=@a.txt;type=a/b,c")?.reason.hasPrefix("2 files in one field ('a.txt', 'c')") == true)
    }

    @Test func quotedCommaIsOneFile() throws {
        #expect(try parse(#"f=@"a,b.jpg""#).source == .file(path: "a,b.jpg"))
    }

    @Test func multipartGroupsAreRefused() throws {
        #expect(failure("a=(x")?.reason.hasPrefix("a value that starts with '(' opens a multipart/mixed group") == true)
        #expect(failure("=)")?.reason.hasPrefix("'=)' closes a multipart/mixed group") == true)
        // Quoting or a name makes them plain text.
        #expect(try parse(#"note="(see below)""#).source == .text("(see below)"))
        #expect(try parse("a=)").source == .text(")"))
        #expect(try parse("a=x(y)").source == .text("x(y)"))
    }

    // MARK: syntax errors and messages

    @Test func missingEqualsIsAnError() {
        #expect(failure("a;b") == CurlFormSyntaxError(argument: "a;b", reason: "expected name=value"))
        #expect(failure("a;b")?.description == "bad -F argument 'a;b': expected name=value")
        #expect(failure("")?.reason == "expected name=value")
    }

    @Test func descriptionQuotesTheArgumentSafely() {
        let error = CurlFormSyntaxError(argument: "it's\n\u{1B}[31m\\\u{202E}", reason: "r")
        #expect(error.description == #"bad -F argument 'it\'s\n\u{1B}[31m\\\u{202E}': r"#)
        #expect(failure("a\u{0}=b")?.reason == "contains a NUL character")
    }

    // MARK: --form-string

    @Test func formStringTakesTheValueLiterally() throws {
        #expect(
            try CurlFormArgument.parseLiteral("a=  @x;type=a/b  ")
                == CurlFormArgument(name: "a", source: .text("  @x;type=a/b  ")))
        #expect(try CurlFormArgument.parseLiteral("a=<x").source == .text("<x"))
        #expect(try CurlFormArgument.parseLiteral("a=(x").source == .text("(x"))
        #expect(try CurlFormArgument.parseLiteral("=)") == CurlFormArgument(name: "", source: .text(")")))
        #expect(try CurlFormArgument.parseLiteral(#"a="q\"";encoder=x"#).source == .text(#""q\"";encoder=x"#))
        #expect(
            CurlFormSyntaxError(argument: "ab", reason: "expected name=value", option: "--form-string").description
                == "bad --form-string argument 'ab': expected name=value")
        #expect(throws: CurlFormSyntaxError(argument: "ab", reason: "expected name=value", option: "--form-string")) {
            try CurlFormArgument.parseLiteral("ab")
        }
    }

    // MARK: the part that is sent

    @Test func partsAreBuiltWithFormDataDefaults() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("front.jpg", text: "JPEG")
        let body = try MultipartForm(
            boundary: try Boundary("XyZ"),
            parts: [
                try parse("f=@\(path);headers=X-Side: front").part(),
                try parse("t=hello;type=text/x").part(),
                try parse("c=<\(path)").part(),
            ]
        ).makeBody()
        let expected =
            "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"f\"; filename=\"front.jpg\"\r\n"
            + "Content-Type: image/jpeg\r\n"
            + "X-Side: front\r\n"
            + "\r\n"
            + "JPEG\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"t\"\r\n"
            + "Content-Type: text/x\r\n"
            + "\r\n"
            + "hello\r\n"
            + "--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"c\"\r\n"
            + "\r\n"
            + "JPEG\r\n"
            + "--XyZ--\r\n"
        #expect(try body.bytes() == Array(expected.utf8))
    }
}
