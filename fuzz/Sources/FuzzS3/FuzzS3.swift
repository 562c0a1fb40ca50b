@testable import UploadEngine

/// Input: an S3 answer's XML body, read as each answer Hoist decodes and as an error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Array(UnsafeRawBufferPointer(start: start, count: count))
    for operation in [S3Operation.create, .listParts, .complete] {
        _ = try? S3Answer.decode(body, as: operation)
    }
    if let error = S3ServerError(status: 503, body: body) {
        _ = error.description
        _ = error.isRetryable
    }
    return 0
}
