import FormData
import Foundation
import Glibc
import TestSupport
import Testing

/// `;headers=` and `;headers=@file`: curl's `read_field_headers` grammar and the
/// `Name: value` shape Hoist needs from every header line.
@Suite struct CurlFormHeadersTests: CurlFormParsing {
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
                + " the part's Content-Disposition, which Hoist builds from the field name and filename=;"
                + " set those instead"
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
}
