import NIOCore
import TestSupport
import Testing

@testable import Receiver

/// Inputs the `multipart` fuzz target (fuzz/README.md) found to crash, and valid neighbours of them.
@Suite struct FuzzRegressionTests {
    func receive(_ body: [UInt8], boundary: String = "b", chunkSize: Int = 1 << 20) throws(ReceiverError)
        -> MultipartStreamHandler
    {
        let directory = TemporaryDirectory()
        let handler = MultipartStreamHandler(boundary: boundary, directory: UploadDirectory(path: directory.path))
        var offset = 0
        do {
            while offset < body.count {
                let end = min(offset + chunkSize, body.count)
                try handler.feed(ByteBuffer(bytes: body[offset..<end]))
                offset = end
            }
            try handler.finish()
        } catch {
            handler.abort()
            throw error
        }
        return handler
    }

    /// multipart-kit looks each header name byte up in a 128-entry table: a byte >= 0x80 trapped.
    @Test(arguments: [1, 3, 1 << 20])
    func aHeaderNameThatIsNotASCIIIsABadRequest(chunkSize: Int) {
        let refusal = ReceiverError.badRequest(
            "malformed multipart/form-data body: a part's header name holds a byte that is not ASCII")
        let first = Array("--b\r\nX-\u{E9}: 1\r\n\r\nv\r\n--b--\r\n".utf8)
        #expect(throws: refusal) { _ = try receive(first, chunkSize: chunkSize) }
        let second =
            Array("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--b\r\n".utf8) + [0xBD]
            + Array(": x\r\n\r\nw\r\n--b--\r\n".utf8)
        #expect(throws: refusal) { _ = try receive(second, chunkSize: chunkSize) }
    }

    /// Bytes >= 0x80 stay fine where the parser does not read them as a name: values, data, preamble.
    @Test(arguments: [1, 3, 1 << 20])
    func bytesAbove127OutsideHeaderNamesStillParse(chunkSize: Int) throws {
        let body = Array(
            ("préambule sans deux-points\r\n--b\r\nContent-Disposition: form-data; name=\"n\u{E9}\"\r\n\r\n"
                + "v\u{E9}\r\u{E9}\r\n--b--\r\n").utf8)
        let handler = try receive(body, chunkSize: chunkSize)
        #expect(handler.fields == [.init(name: "n\u{E9}", value: "v\u{E9}\r\u{E9}")])
    }
}
