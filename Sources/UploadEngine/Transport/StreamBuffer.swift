import FormData
import NIOConcurrencyHelpers

/// Standard input for a tus upload of deferred length or an S3 upload: read
/// a chunk (a part) at a time, and the last one kept until the server
/// confirmed it, so a `PATCH` or `UploadPart` that failed can be sent again.
/// Bytes before that are gone: a stream cannot be read twice.
final class StreamBuffer: @unchecked Sendable {
    struct Chunk: Sendable {
        var bytes: [UInt8]
        /// The stream ended with this chunk: its end is the upload's length.
        var isLast: Bool
    }

    private struct State {
        var reader: BodyReader?
        /// The stream's bytes from `start` on.
        var bytes: [UInt8] = []
        var start: Int64 = 0
        var ended = false
    }

    private let state: NIOLockedValueBox<State>

    init(_ source: StreamSource) {
        let reader = RequestBody(contentType: "", segments: [.stream(source, field: "-")]).makeReader()
        state = NIOLockedValueBox(State(reader: reader))
    }

    /// The bytes of `range`, fewer when the stream ends first. Blocking: call
    /// it off the engine's queue.
    func chunk(_ range: Range<Int64>) throws(UploadFailure) -> Chunk {
        try state.withLockedValue { (state: inout State) -> Result<Chunk, UploadFailure> in
            guard range.lowerBound >= state.start else {
                return .failure(
                    .protocolError(
                        "the server needs standard input again from byte \(range.lowerBound), and it cannot be read twice"
                    ))
            }
            // What the server confirmed is no longer needed.
            let confirmed = Int(min(range.lowerBound - state.start, Int64(state.bytes.count)))
            state.bytes.removeFirst(confirmed)
            state.start += Int64(confirmed)
            let wanted = Int(range.upperBound - state.start)
            // One byte past the chunk tells whether it is the last: that PATCH
            // must carry Upload-Length (and that part is S3's last).
            while state.bytes.count <= wanted, !state.ended, let reader = state.reader {
                do {
                    guard let next = try reader.nextChunk(maxSize: min(1 << 20, wanted + 1 - state.bytes.count)) else {
                        state.ended = true
                        reader.close()
                        break
                    }
                    state.bytes += next
                } catch let error as FormDataError {
                    return .failure(.input(error))
                } catch {
                    return .failure(.other("\(error)"))
                }
            }
            let from = Int(range.lowerBound - state.start)
            let to = min(state.bytes.count, wanted)
            return .success(
                Chunk(bytes: Array(state.bytes[min(from, to)..<to]), isLast: state.ended && to == state.bytes.count))
        }.get()
    }
}
