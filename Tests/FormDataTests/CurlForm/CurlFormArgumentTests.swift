import FormData
import Foundation
import Glibc
import TestSupport
import Testing

/// curl's `-F` / `--form-string` grammar (src/tool_formparse.c), value by
/// value, and a cross-check against the real /usr/bin/curl.
@Suite struct CurlFormArgumentTests {
    // MARK: helpers

    /// A headers-file reader over an in-memory table.
    static func reader(_ files: [String: String]) -> (String) throws -> [UInt8] {
        { path in
            guard let text = files[path] else { throw StubMissing(path: path) }
            return Array(text.utf8)
        }
    }

    struct StubMissing: Error, CustomStringConvertible {
        var path: String
        var description: String { "No such file or directory" }
    }

    func parse(_ argument: String, files: [String: String] = [:]) throws -> CurlFormArgument {
        try CurlFormArgument.parse(argument, headerFileReader: Self.reader(files))
    }

    /// The error `parse` throws, or nil.
    func failure(_ argument: String, files: [String: String] = [:]) -> CurlFormSyntaxError? {
        do {
            _ = try CurlFormArgument.parse(argument, headerFileReader: Self.reader(files))
            return nil
        } catch {
            return error
        }
    }

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
                #"ignored what follows the closing quote in '"abc"def' (curl: "Trailing data after quoted form parameter")"#
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

    // MARK: headers

    @Test func inlineHeaders() throws {
        let argument = try parse(#"f=@a.txt;headers="X-Trace: 1";headers=X-Side: front;HEADERS=X-A:b"#)
        #expect(
            argument.headers == [HeaderField("X-Trace", "1"), HeaderField("X-Side", "front"), HeaderField("X-A", "b")])
        #expect(argument.part().headers == argument.headers)
        // Optional white space around a value is not part of it.
        #expect(try parse(#"a=v;headers="X-A:   b  ""#).headers == [HeaderField("X-A", "b")])
        // An empty headers= adds nothing, as in curl.
        #expect(try parse("a=v;headers=;headers=  ").headers == [])
    }

    @Test func headersFileFollowsCurlsCommentAndFoldingRules() throws {
        let file = "# comment\nX-A: 1\n  folded\r\n\n#X-Skip: 1\nX-B:   two  \n   \nX-C: a\rb\n\tmore\nX-D: d"
        let expected = [
            HeaderField("X-A", "1  folded"), HeaderField("X-B", "two"), HeaderField("X-C", "ab\tmore"),
            HeaderField("X-D", "d"),
        ]
        #expect(try parse("a=v;headers=@h.txt", files: ["h.txt": file]).headers == expected)
        #expect(try parse("a=v;headers=<h.txt", files: ["h.txt": file]).headers == expected)
        #expect(try parse("a=v;headers=@ h.txt ", files: ["h.txt": file]).headers == expected)
        #expect(try parse(#"a=v;headers=@"my;h.txt""#, files: ["my;h.txt": file]).headers == expected)
        // Inline and file headers keep their order.
        #expect(
            try parse("a=v;headers=X-0: 0;headers=@h;headers=X-9: 9", files: ["h": "X-5: 5\n"]).headers
                == [HeaderField("X-0", "0"), HeaderField("X-5", "5"), HeaderField("X-9", "9")])
        // Only "@" or "<" right after "headers=" names a file.
        #expect(
            failure("a=v;headers= @h", files: ["h": "X: 1"])?.reason == "header '@h' is not of the form 'Name: value'")
    }

    @Test func missingHeadersFileIsAnErrorNamingTheFile() {
        let dir = TemporaryDirectory()
        let path = dir.path + "/missing-file"
        do {
            _ = try CurlFormArgument.parse("a=v;headers=@" + path)
            Issue.record("expected an error")
        } catch {
            #expect(error.reason == "cannot read headers file '\(path)': No such file or directory")
            #expect(error.description == "bad -F argument 'a=v;headers=@\(path)': \(error.reason)")
        }
    }

    @Test func headersFileIsReadFromDisk() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("hdrs", text: "X-Disk: yes\r\n")
        #expect(try CurlFormArgument.parse("a=v;headers=@" + path).headers == [HeaderField("X-Disk", "yes")])
        let directory = dir.directory("sub")
        #expect(throws: CurlFormSyntaxError.self) { try CurlFormArgument.parse("a=v;headers=@" + directory) }
    }

    @Test func headersFileCannotInjectLines() throws {
        // curl drops every CR and splits at LF, so a header from a file is always one
        // line; the second line here is a header of its own, and a reserved one.
        let injected = "X-A: 1\r\nContent-Disposition: form-data; name=\"evil\"\r\n"
        #expect(
            failure("a=v;headers=@h", files: ["h": injected])?.reason
                == "header 'Content-Disposition: form-data; name=\"evil\"' (headers file 'h', line 2) would replace"
                + " the part's Content-Disposition, which Hoist builds from the field name and filename=; set those instead"
        )
        // A lone CR is dropped, as curl does.
        #expect(try parse("a=v;headers=@h", files: ["h": "X-C: a\rb"]).headers == [HeaderField("X-C", "ab")])
        // NUL, over-long headers and bad UTF-8 are refused (curl cuts the header short).
        #expect(
            failure("a=v;headers=@h", files: ["h": "X-A: 1\nX-B: a\u{0}b\n"])?.reason
                == "headers file 'h', line 2: contains a NUL byte")
        #expect(
            failure("a=v;headers=@h", files: ["h": "\nX-Long: " + String(repeating: "x", count: 991)])?.reason
                == "headers file 'h', line 2: header is longer than 998 bytes (curl would truncate it)")
        #expect(throws: Never.self) {
            try parse("a=v;headers=@h", files: ["h": "X-Long: " + String(repeating: "x", count: 990)])
        }
        let invalidUTF8: (String) throws -> [UInt8] = { _ in Array("X-A: ".utf8) + [0xFF] }
        #expect(
            throws: CurlFormSyntaxError(
                argument: "a=v;headers=@h", reason: "header (headers file 'h', line 1) is not valid UTF-8")
        ) {
            try CurlFormArgument.parse("a=v;headers=@h", headerFileReader: invalidUTF8)
        }
    }

    @Test func inlineHeaderWithLineBreakIsRefused() {
        #expect(
            failure("a=v;headers=\"X-A: 1\r\nX-B: 2\"")?.reason
                == #"header 'X-A: 1\r\nX-B: 2' contains CR, LF or NUL; a header must be one line"#)
    }

    @Test func malformedHeadersAreRefused() {
        #expect(failure("a=v;headers=NoColon")?.reason == "header 'NoColon' is not of the form 'Name: value'")
        #expect(
            failure("a=v;headers=X A: 1")?.reason
                == "header 'X A: 1' has an invalid name 'X A': use letters, digits and !#$%&'*+-.^_`|~ only")
        #expect(failure("a=v;headers=: 1")?.reason.contains("has an invalid name ''") == true)
        #expect(failure("a=v;headers=@h", files: ["h": " X-Indented: 1"])?.reason.contains("line 1") == true)
    }

    @Test func contentTypeHeaderFollowsCurl() throws {
        // Without type=, the first Content-Type header sets the part's type.
        let header = try parse(#"a=v;headers="Content-Type: x/y";headers="content-type: z/w""#)
        #expect(header.contentType == nil)
        #expect(header.headers == [HeaderField("Content-Type", "x/y")])
        #expect(header.warnings == ["header 'content-type: z/w' is not sent: an earlier header sets it"])
        // With type=, curl sends no Content-Type header of the user's.
        let typed = try parse(#"a=v;type=a/b;headers="Content-Type: x/y";headers=X-K: 1"#)
        #expect(typed.contentType == "a/b")
        #expect(typed.headers == [HeaderField("X-K", "1")])
        #expect(typed.warnings == ["header 'Content-Type: x/y' is not sent: type= sets the Content-Type"])
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

// MARK: - Cross-check with the real curl

/// Runs /usr/bin/curl against a one-shot listener on 127.0.0.1 and compares
/// each part it sends with the part Hoist builds from the same argument.
@Suite struct CurlFormArgumentCrossCheckTests {
    /// Headers Hoist deliberately sends differently from curl.
    enum Difference {
        /// curl 7.88's own table is tiny (gif, jpg, jpeg, png, svg, txt, htm, html,
        /// pdf, xml) and it has no default for text parts or stdin with a filename;
        /// Hoist's rule is: a part with a filename always has a type.
        case contentType
        /// curl omits the name parameter for an empty name; Part always has one.
        case name
    }

    struct Case: CustomStringConvertible {
        var option = "-F"
        var argument: String
        var standardInput: [UInt8]? = nil
        var differences: Set<Difference> = []
        var description: String { "\(option) \(argument)" }
    }

    static let curl = "/usr/bin/curl"

    static func cases(dir: String) -> [Case] {
        [
            Case(argument: "greeting=hello"),
            Case(argument: "greeting=  padded value  "),
            Case(argument: #"q="a;b,c \"x\" \\ y\n" "#),
            Case(argument: "note=value;type=text/x-note"),
            Case(argument: "note=v;TYPE=text/plain; charset=utf-8;format=flowed"),
            Case(argument: "t=v;type=a/b ; ;x"),
            Case(argument: "doc=@\(dir)/report.txt"),
            Case(argument: "doc=@\(dir)/report.txt;type=application/x-custom;filename=renamed.bin"),
            Case(argument: #"doc=@"\#(dir)/a,b;c.txt";filename="r\"n.txt""#),
            Case(argument: "doc=@ \(dir)/data.bin "),
            Case(argument: "doc=<\(dir)/report.txt"),
            // curl: application/octet-stream (no json in its table); Hoist: application/json.
            Case(argument: "doc=@\(dir)/x.json", differences: [.contentType]),
            Case(argument: #"f=@\#(dir)/report.txt;headers="X-Trace: 1";headers=X-Side: front"#),
            Case(argument: "f=<\(dir)/report.txt;headers=@\(dir)/hdrs"),
            Case(argument: "t=v;unknown=1;type=text/x"),
            Case(argument: #"t="unterminated"#),
            Case(argument: #"t="abc"def"#),
            // curl: no Content-Type for stdin named "-"; Hoist: application/octet-stream.
            Case(argument: "s=@-", standardInput: Array("from stdin\n".utf8), differences: [.contentType]),
            Case(argument: "s=<-;type=text/x", standardInput: Array("as text".utf8)),
            Case(argument: "s=@-;filename=up.txt", standardInput: Array("renamed".utf8)),
            Case(argument: "t=v;filename=f.txt"),
            // curl: no Content-Type (f.bin is not in its table); Hoist: application/octet-stream.
            Case(argument: "t=v;filename=f.bin", differences: [.contentType]),
            Case(argument: "we\"ird=1"),
            Case(argument: #"t=v;headers="Content-Type: x/y""#),
            Case(argument: #"t=v;type=a/b;headers="Content-Type: x/y""#),
            Case(option: "--form-string", argument: "lit=@not-a-file;type=x/y"),
            Case(argument: "=anon", differences: [.name]),
        ]
    }

    @Test(.enabled(if: access("/usr/bin/curl", X_OK) == 0, "needs /usr/bin/curl"))
    func partsMatchWhatCurlSends() throws {
        let dir = TemporaryDirectory()
        _ = dir.file("report.txt", text: "hello\n")
        _ = dir.file("a,b;c.txt", text: "comma file")
        dir.file("data.bin", [0, 1, 2, 0xFF])
        _ = dir.file("x.json", text: "{}")
        _ = dir.file("hdrs", text: "# comment\nX-A: 1\n  folded\r\n\n#X-Skip: 1\nX-B:   two  \n")
        for check in Self.cases(dir: dir.path) {
            let curlPart = try Self.curlPart(for: check, dir: dir)
            let hoistPart = try Self.hoistPart(for: check, dir: dir)
            #expect(curlPart.body == hoistPart.body, "\(check)")
            #expect(curlPart.filename == hoistPart.filename, "\(check)")
            #expect(Self.extraHeaders(curlPart) == Self.extraHeaders(hoistPart), "\(check)")
            if !check.differences.contains(.name) {
                #expect(curlPart.name == hoistPart.name, "\(check)")
            }
            if !check.differences.contains(.contentType) {
                #expect(curlPart.contentType.map(Self.trimmed) == hoistPart.contentType.map(Self.trimmed), "\(check)")
            }
        }
    }

    /// The differences listed above are real: this pins what curl 7.88 sends.
    @Test(.enabled(if: access("/usr/bin/curl", X_OK) == 0, "needs /usr/bin/curl"))
    func documentedDifferencesAreWhatCurlDoes() throws {
        let dir = TemporaryDirectory()
        _ = dir.file("x.json", text: "{}")
        let json = try Self.curlPart(for: Case(argument: "f=@\(dir.path)/x.json"), dir: dir)
        #expect(json.contentType == "application/octet-stream")
        let stdin = try Self.curlPart(for: Case(argument: "f=@-", standardInput: [0x41]), dir: dir)
        #expect(stdin.filename == "-")
        #expect(stdin.contentType == nil)
        let anonymous = try Self.curlPart(for: Case(argument: "=anon"), dir: dir)
        #expect(anonymous.header("Content-Disposition") == "form-data")
        #expect(try Self.hoistPart(for: Case(argument: "=anon"), dir: dir).name == "")
    }

    static func extraHeaders(_ part: ParsedPart) -> [[String]] {
        part.headers
            .filter { !["content-disposition", "content-type"].contains($0.name.lowercased()) }
            .map { [$0.name.lowercased(), trimmed($0.value)] }
    }

    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces)
    }

    /// Hoist's part for the argument, parsed back. Standard input is replaced by
    /// a stream from a file holding the same bytes.
    static func hoistPart(for check: Case, dir: TemporaryDirectory) throws -> ParsedPart {
        let argument =
            check.option == "-F"
            ? try CurlFormArgument.parse(check.argument) : try CurlFormArgument.parseLiteral(check.argument)
        var part = argument.part()
        if case .stream(.standardInput) = part.content {
            part.content = .stream(.path(dir.file("stdin-copy", check.standardInput ?? [])))
        }
        let form = MultipartForm(parts: [part])
        let parts = try parseMultipart(try form.makeBody().bytes(), boundary: form.boundary.value)
        try #require(parts.count == 1)
        return parts[0]
    }

    /// The one part curl sends for the argument.
    static func curlPart(for check: Case, dir: TemporaryDirectory) throws -> ParsedPart {
        let listener = try OneShotListener()
        let input = check.standardInput ?? []
        let process = try Subprocess(
            curl, ["-s", "-o", "/dev/null", "-H", "Expect:", check.option, check.argument, "http://127.0.0.1:\(listener.port)/"],
            directory: dir.path, timeout: .seconds(60), input: { $0.write(Data(input)) })
        let request = try listener.receiveRequest()
        let finished = process.wait()
        #expect(finished.status == 0, "curl failed for \(check)")
        let (headers, body) = try splitRequest(request)
        let contentType = try #require(headers["content-type"], "\(check)")
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        let parts = try parseMultipart(body, boundary: boundary)
        try #require(parts.count == 1, "\(check)")
        return parts[0]
    }

    /// Splits a raw HTTP request into lower-cased headers and its body.
    static func splitRequest(_ request: [UInt8]) throws -> (headers: [String: String], body: [UInt8]) {
        let separator = Array("\r\n\r\n".utf8)
        let end = try #require(request.firstRange(of: separator))
        var headers: [String: String] = [:]
        for line in String(decoding: request[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            .dropFirst()
        {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = trimmed(String(line[line.index(after: colon)...]))
        }
        return (headers, Array(request[end.upperBound...]))
    }
}

/// A TCP listener on 127.0.0.1 with an ephemeral port that accepts one
/// connection, reads one request with a Content-Length, answers 200 and closes.
final class OneShotListener {
    let socketFD: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, listen(fd, 1) == 0, named == 0 else {
            close(fd)
            throw ListenerError(errno: errno)
        }
        socketFD = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    struct ListenerError: Error {
        var errno: Int32
    }

    deinit {
        close(socketFD)
    }

    /// Waits at most `timeout` milliseconds for each step.
    func receiveRequest(timeout: Int32 = 5000) throws -> [UInt8] {
        try #require(waitReadable(socketFD, timeout: timeout), "curl did not connect")
        let connection = accept(socketFD, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !isComplete(request) {
            try #require(waitReadable(connection, timeout: timeout), "request did not arrive")
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            try #require(count > 0, "connection closed early")
            request += chunk[0..<count]
        }
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        return request
    }

    private func isComplete(_ request: [UInt8]) -> Bool {
        guard let end = request.firstRange(of: Array("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: request[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return true }
        return request.count - end.upperBound >= length
    }

    private func waitReadable(_ fd: Int32, timeout: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, timeout) == 1
    }
}
