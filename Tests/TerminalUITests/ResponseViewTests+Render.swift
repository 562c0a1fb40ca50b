import FormData
import Testing
import UploadEngine
import UploadPlan

@testable import TerminalUI

@Suite struct ResponseViewRenderTests {
    typealias F = ResponseViewFixtures

    static let bigBody =
        "[" + (0..<10_000).map { #"{"id":\#($0),"name":"file-\#($0).jpg"}"# }.joined(separator: ",") + "]"

    @Test func cursorIsHighlightedOnlyWhenFocused() {
        let state = ResponseViewState(cursor: 2)
        let focused = F.render(F.task(), state, focused: true)
        #expect((0..<60).allSatisfy { focused[$0, 2].style.background == .blue })
        #expect(focused[0, 1].style.background == .default && focused[0, 3].style.background == .default)
        #expect(focused[4, 2].style.bold, "the key keeps its weight")
        let unfocused = F.render(F.task(), state, focused: false)
        #expect(!(0..<60).contains { x in (0..<14).contains { unfocused[x, $0].style.background == .blue } })
        #expect(F.text(focused) == F.text(unfocused))
    }

    @Test func tenThousandItemsDrawOnlyTheView() throws {
        let task = F.task(body: Self.bigBody)
        var document = ResponseDocument(task: task, state: ResponseViewState())
        #expect(document.lines.count == 2 + 10_000 * 3)

        var grid = Grid(size: Size(width: 40, height: 8))
        ResponseView.render(
            document, state: ResponseViewState(), into: &grid, in: Rect(x: 0, y: 1, width: 40, height: 6), focused: true
        )
        #expect(
            F.text(grid) == [
                "",
                "HTTP 200 OK · 12 ms · 340 KiB · applica…",
                "▾ $ 10000 items",
                "  ▾ 0 2 keys",
                "      id: 0",
                "      name: \"file-0.jpg\"",
                "  ▾ 1 2 keys                     1/30002",
                "",
            ])
        #expect(grid[33, 6].style == ResponseView.indicatorStyle)
        #expect(grid[0, 1].style.background == .blue, "the cursor starts on the status line")

        var state = ResponseViewState()
        state.moveToBottom(lineCount: document.lines.count, viewHeight: 6)
        grid = Grid(size: Size(width: 40, height: 6))
        ResponseView.render(document, state: state, into: &grid, in: grid.bounds, focused: true)
        #expect(
            F.text(grid) == [
                "  ▾ 9998 2 keys",
                "      id: 9998",
                "      name: \"file-9998.jpg\"",
                "  ▾ 9999 2 keys",
                "      id: 9999",
                "      name: \"file-9999.jpg\"  30002/30002",
            ])
        #expect(
            (0..<40).allSatisfy { grid[$0, 5].style.background == .blue || $0 >= 28 }, "the last line is the cursor")
        #expect(F.text(grid).last?.hasSuffix("30002/30002") == true)

        // The plain case: 10,000 scalars.
        let strings = F.task(body: "[" + (0..<10_000).map { #""file-\#($0).jpg""# }.joined(separator: ",") + "]")
        document = ResponseDocument(task: strings, state: ResponseViewState())
        #expect(document.lines.count == 10_002)

        // Collapsed, the array costs one line however long it is.
        let collapsed = ResponseDocument(task: task, state: ResponseViewState(collapsed: ["$"]))
        #expect(collapsed.lines.count == 2)
        #expect(collapsed.lines[1].text == "▸ $ […] 10000 items")
    }

    @Test func shortDocumentsHaveNoIndicator() {
        let grid = F.render(F.task(), width: 60, height: 12)
        #expect(!F.text(grid).joined().contains("/12"))
        #expect(F.text(grid) == F.expanded)
    }

    @Test func drawsOnlyInsideItsRectangle() {
        var grid = Grid(size: Size(width: 20, height: 4), fill: Cell("#"))
        let state = ResponseViewState()
        ResponseView.render(
            ResponseDocument(task: F.task(), state: state), state: state, into: &grid,
            in: Rect(x: 2, y: 1, width: 16, height: 2), focused: false)
        #expect(
            grid.lines() == [
                "####################",
                "##HTTP 200 OK · 1…##",
                "##▾ $ 3 keys  1/12##",
                "####################",
            ])
    }
}

/// An S3 multipart upload in the Response pane: where it stands, and each
/// part the server confirmed, by number, size and ETag.
@Suite struct ResponseViewS3PartsTests {
    @Test func confirmedPartsAreListedWithWhatIsLeft() {
        let mib: Int64 = 1 << 20
        var task = ResponseViewFixtures.pending(.sending)
        task.progress = UploadProgress(bytesSent: 16 * mib, totalBytes: 83 * mib)
        task.checkpoint = .s3(
            S3Checkpoint(
                uploadID: "2~UpLoAd", partSize: 8 * mib, length: 83 * mib,
                parts: [
                    S3Part(number: 1, etag: "\"0cc175b9c0f1b6a831c399e269772661\"", size: 8 * mib),
                    S3Part(number: 10, etag: "\"92eb5ffee6ae2fec3ad71c777531578f\"", size: 3 * mib),
                ], file: nil))
        let rows = ResponseViewFixtures.text(ResponseViewFixtures.render(task, width: 70, height: 10))
        #expect(rows.contains { $0.contains("S3 multipart upload 2~UpLoAd, 2 of 11 parts") }, "\(rows)")
        #expect(rows.contains { $0.contains("the server holds 11.0 MiB of 83.0 MiB") }, "\(rows)")
        #expect(rows.contains { $0.contains("part  1  8.00 MiB  \"0cc175b9c0f1b6a831c399e269772661\"") }, "\(rows)")
        #expect(rows.contains { $0.contains("part 10  3.00 MiB  \"92eb5ffee6ae2fec3ad71c777531578f\"") }, "\(rows)")
        #expect(rows.contains { $0.contains("9 parts to go") }, "\(rows)")

        // Standard input: its length is known at its end, so nothing counts against S3's 10,000.
        task.progress = UploadProgress(bytesSent: 16 * mib, totalBytes: nil)
        task.checkpoint = .s3(
            S3Checkpoint(
                uploadID: "2~StDiN", partSize: 8 * mib, length: 10_000 * 8 * mib,
                parts: [S3Part(number: 1, etag: "\"0cc175b9c0f1b6a831c399e269772661\"", size: 8 * mib)], file: nil))
        let stream = ResponseViewFixtures.text(ResponseViewFixtures.render(task, width: 70, height: 10))
        #expect(stream.contains { $0.contains("S3 multipart upload 2~StDiN, 1 part so far") }, "\(stream)")
        #expect(stream.contains { $0.hasSuffix("the server holds 8.00 MiB") }, "\(stream)")
        #expect(stream.contains { $0.contains("part 1  8.00 MiB") }, "\(stream)")
        #expect(stream.contains { $0.contains("more parts until standard input ends (at most 10,000)") }, "\(stream)")
        #expect(!stream.joined().contains("9999"), "\(stream)")
    }
}
