import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

/// Bodies that are not a JSON tree, the status line, failure banners, tasks with no response yet,
/// and lines cut at the pane's edge.
extension ResponseViewDocumentTests {
    @Test func invalidJSONShowsTheTextAndTheError() {
        let task = F.task(
            body: "{\"a\": 1,\n oops",
            content: .invalidJSON(text: "{\"a\": 1,\n oops", error: "unexpected character at byte 10"))
        let grid = F.render(task, height: 5)
        #expect(
            F.text(grid) == [
                "HTTP 200 OK · 12 ms · 14 B · application/json",
                "invalid JSON: unexpected character at byte 10",
                "{\"a\": 1,",
                " oops",
                "",
            ])
        #expect(grid[0, 1].style.dim)
        #expect(!grid[0, 2].style.dim)
    }

    @Test func textBinaryAndEmptyBodies() {
        let text = F.task(body: "first\r\n\tsecond\u{7}\nthird\n", headers: [HeaderField("Content-Type", "text/plain")])
        #expect(
            F.text(F.render(text, height: 5)) == [
                "HTTP 200 OK · 12 ms · 22 B · text/plain", "first", "    second\u{FFFD}", "third", "",
            ])
        let binary = F.task(body: "xx", headers: [], content: .binary(summary: "2 bytes of image/png"))
        #expect(F.text(F.render(binary, height: 2)) == ["HTTP 200 OK · 12 ms · 2 B", "(2 bytes of image/png)"])
        let empty = F.task(body: "", status: 204, headers: [])
        let grid = F.render(empty, height: 3)
        #expect(F.text(grid) == ["HTTP 204 No Content · 12 ms · 0 B", "(empty body)", ""])
        #expect(grid[0, 1].style.dim)
    }

    @Test func truncatedBodySaysWhere() {
        let task = F.task(body: "partial text", headers: [], received: 9_000_000)
        let grid = F.render(task, width: 70, height: 2)
        #expect(F.text(grid)[0] == "HTTP 200 OK · 12 ms · 8.58 MiB (truncated at 12 B)")
        #expect(F.style(of: "(truncated", row: 0, in: grid) == Style.fg(.yellow))
    }

    @Test func statusColours() {
        for (status, colour) in [
            (200, Color.green), (201, .green), (302, .yellow), (404, .red), (503, .red), (101, .default),
        ] {
            let grid = F.render(F.task(body: "", status: status, headers: []), height: 2)
            #expect(grid[0, 0].style == Style(foreground: colour, bold: true), "status \(status)")
            #expect(grid[0, 0].text == "H")
        }
        #expect(
            F.text(F.render(F.task(body: "", status: 299, headers: []), height: 2)) == [
                "HTTP 299 · 12 ms · 0 B", "(empty body)",
            ])
    }

    @Test func expectationFailureBannerShowsTheServerMessage() {
        let body = #"{"RETCODE":"1001","RETMSG":"身份证号码格式错误"}"#
        let failure = UploadFailure.expectationFailed(
            path: "RETCODE", expected: "0000", actual: "1001", message: "身份证号码格式错误", reason: nil)
        let grid = F.render(F.task(body: body, state: .failed(failure)), height: 7)
        #expect(
            F.text(grid) == [
                "HTTP 200 OK · 12 ms · 57 B · application/json",
                "✘ 身份证号码格式错误",
                "  RETCODE = \"1001\", expected \"0000\"",
                "▾ $ 2 keys",
                "    RETCODE: \"1001\"",
                "    RETMSG: \"身份证号码格式错误\"",
                "",
            ])
        #expect(grid[0, 1].style == Style(foreground: .red, bold: true))
        #expect(grid[2, 1].style == Style(foreground: .red, bold: true))
        #expect(grid[2, 2].style == Style.fg(.red))

        let noMessage = UploadFailure.expectationFailed(
            path: "data.ok", expected: "true", actual: nil, message: nil, reason: nil)
        #expect(
            F.text(F.render(F.task(body: body, state: .failed(noMessage)), height: 8))[1]
                == "✘ data.ok missing, expected \"true\"")
        let notJSON = UploadFailure.expectationFailed(
            path: "RETCODE", expected: "0000", actual: nil, message: nil, reason: "the response is not JSON")
        #expect(
            F.text(F.render(F.task(body: "<html>", state: .failed(notJSON)), height: 8))[1]
                == "✘ RETCODE: expected \"0000\", but the response is not JSON")
    }

    @Test func httpStatusFailureBanner() {
        let failure = UploadFailure.httpStatus(500, message: "disk full")
        let grid = F.render(
            F.task(body: #"{"msg":"disk full"}"#, status: 500, state: .failed(failure)), width: 70, height: 4)
        #expect(
            F.text(grid) == [
                "HTTP 500 Internal Server Error · 12 ms · 19 B · application/json", "✘ disk full", "▾ $ 1 key",
                "    msg: \"disk full\"",
            ])
        #expect(grid[0, 0].style == Style(foreground: .red, bold: true))
        #expect(grid[2, 1].style == Style(foreground: .red, bold: true))
        let silent = F.render(
            F.task(body: "", status: 502, state: .failed(.httpStatus(502, message: nil)), headers: []), height: 2)
        #expect(F.text(silent) == ["HTTP 502 Bad Gateway · 12 ms · 0 B", "(empty body)"])
        let early = UploadFailure.answeredEarly(status: 200, sent: 10, total: 100)
        #expect(
            F.text(F.render(F.task(body: "", state: .failed(early), headers: []), width: 120, height: 3))[1]
                == "✘ the server answered HTTP 200 after only 10 of 100 bytes were sent; it did not read the whole upload"
        )
    }

    @Test func noResponseYet() {
        #expect(F.text(F.render(F.pending(.queued), height: 1)) == ["no response yet (queued)"])
        #expect(F.text(F.render(F.pending(.sending), height: 1)) == ["no response yet (sending)"])
        #expect(F.text(F.render(F.pending(.awaitingResponse), height: 1)) == ["no response yet (awaiting response)"])
        #expect(
            F.text(F.render(F.pending(.waitingForDependency(TaskID(7))), height: 1)) == [
                "no response yet (waiting for #7)"
            ])
        #expect(
            F.text(F.render(F.pending(.cancelled(reason: "front.jpg (task #1) failed: HTTP 500")), height: 3)) == [
                "no response: cancelled", "  front.jpg (task #1) failed", "  HTTP 500",
            ], "one clause a line")
        #expect(F.text(F.render(nil, height: 1)) == ["no task selected"])
        let grid = F.render(F.pending(.queued), height: 1)
        #expect(grid[0, 0].style.dim)
        let failed = F.render(F.pending(.failed(.connectionFailed("connection refused"))), height: 2)
        #expect(F.text(failed) == ["✘ cannot connect: connection refused", ""])
        #expect(failed[2, 0].style.foreground == .red)
    }

    @Test func cjkIsCutByColumnsAtNarrowWidths() {
        let body = #"{"姓名":"张三丰张三丰张三丰张三丰","备注信息":{"原因":"身份证号码格式错误，请重新上传"}}"#
        let grid = F.render(F.task(body: body), width: 30, height: 6)
        #expect(
            F.text(grid) == [
                "HTTP 200 OK · 12 ms · 123 B ·…",
                "▾ $ 2 keys",
                "    姓名: \"张三丰张三丰张三丰…",
                "  ▾ 备注信息 1 key",
                "      原因: \"身份证号码格式错…",
                "",
            ])
        for y in 0..<grid.height {
            for x in 0..<grid.width where grid[x, y].isContinuation {
                #expect(x > 0 && grid[x - 1, y].width == 2, "no orphan half of a wide character at \(x),\(y)")
            }
        }
        // An odd column left before a wide character stays blank rather than splitting it.
        let odd = F.render(F.task(body: body), width: 29, height: 6)
        #expect(odd.line(2) == "    姓名: \"张三丰张三丰张三… ")
        #expect(F.text(F.render(F.task(body: body), width: 28, height: 6))[2] == "    姓名: \"张三丰张三丰张三…")
    }

    @Test func spanCutExactlyAtABoundaryStillEndsInAnEllipsis() {
        var grid = Grid(size: Size(width: 6, height: 1))
        ResponseView.draw([.init("abcde"), .init("fg")], into: &grid, x: 0, y: 0, width: 6, clip: grid.bounds)
        #expect(grid.line(0) == "abcde…")
        var wide = Grid(size: Size(width: 6, height: 1))
        ResponseView.draw([.init("ab"), .init("身份证")], into: &wide, x: 0, y: 0, width: 6, clip: wide.bounds)
        #expect(wide.line(0) == "ab身… ")
    }
}
