import FormData

@testable import Receiver
@testable import UploadEngine

/// Input: header lines `Name: value`, as a tus server's answer (read by the client) and as a tus
/// client's request (read by the receiver, which must refuse a hostile one with a 4xx).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let headers = text.split(separator: "\n").map { line -> HeaderField in
        let line = line.hasSuffix("\r") ? line.dropLast() : line
        guard let colon = line.firstIndex(of: ":") else { return HeaderField(String(line), "") }
        return HeaderField(String(line[..<colon]), String(line[line.index(after: colon)...]))
    }

    // The client: OPTIONS answers, and the checksum algorithm it picks from them.
    let capabilities = TusServerCapabilities(headers: headers)
    _ = TusChecksumAlgorithm.choose(offered: capabilities.checksumAlgorithms)
    _ = capabilities.offers("creation")
    _ = headers.value(of: "Upload-Offset").flatMap { Int64($0.trimmingSpaces) }

    // The receiver: every header rule a request goes through.
    let request = TusHeaders { name in headers.value(of: name) }
    _ = try? request.checkVersion()
    _ = try? request.integer("Upload-Offset")
    _ = try? request.integer("Upload-Length")
    _ = request.contentLength
    _ = request.hasBody
    _ = try? request.checkChunkContentType()
    _ = try? request.checksum()
    if let metadata = try? request.metadata() {
        _ = metadata.filename
        _ = metadata.filetype
    }
    _ = try? TusCreation(request, maxSize: 1 << 40)
    return 0
}
