import Foundation
import NIOCore

@testable import Receiver

/// One folder for the whole run: every input's files are removed by `abort()`.
private let folder: String = {
    let path = NSTemporaryDirectory() + "hoist-fuzz-multipart-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

/// Input: a boundary length byte (1...80), a chunk size byte (0: the whole body at once), the boundary,
/// then the body. The boundary comes from a header, so it holds no CR, LF or NUL and is never empty.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard bytes.count >= 3 else { return 0 }
    let boundaryLength = min(1 + Int(bytes[0]) % 80, bytes.count - 2)
    let boundaryBytes = bytes[2..<(2 + boundaryLength)]
    guard !boundaryBytes.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else { return 0 }
    let chunkSize = bytes[1] == 0 ? Int.max : Int(bytes[1])
    let body = bytes[(2 + boundaryLength)...]

    let handler = MultipartStreamHandler(
        boundary: String(decoding: boundaryBytes, as: UTF8.self), directory: UploadDirectory(path: folder),
        maxParts: 20, maxTotalFieldBytes: 1 << 16)
    defer {
        handler.abort()
        // A file left behind after abort() would fill the receiver's disk with failed uploads.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        if !left.isEmpty { fatalError("abort() left \(left)") }
    }
    var offset = body.startIndex
    do {
        while offset < body.endIndex {
            let end = offset + min(chunkSize, body.endIndex - offset)
            try handler.feed(ByteBuffer(bytes: body[offset..<end]))
            offset = end
        }
        try handler.finish()
    } catch {
        return 0
    }
    return 0
}
