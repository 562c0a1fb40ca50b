import NIOCore

// Streaming an accepted chunk onto its session's bytes.
extension GCSService {
    /// Appends the body (past the bytes already held) and answers 308 with the new `Range`, or ends the
    /// upload when the chunk is the last.
    ///
    /// A body cut short keeps the whole 256 KiB blocks that arrived, as Google keeps at most whole
    /// multiples; a status query then tells the client where to go on. Any other failure keeps nothing
    /// of the chunk. Throws only when no answer can be written; the session is released either way.
    func receive(
        _ receipt: GCSReceipt, reader: inout IncomingBodyReader, baseURL: String
    ) async throws(ReceiverError) -> Answer {
        var session = receipt.session
        let start = session.persisted
        let granularity = GCSSession.chunkGranularity
        var skip = receipt.skip
        var bodyBytes: Int64 = 0
        var written: Int64 = 0
        var digests = session.digests
        // The state at the last 256 KiB boundary written: what a cut keeps.
        var boundary = (offset: start, digests: digests)

        func settle(at offset: Int64, _ kept: GCSDigests, file: TusDataFile?) {
            if offset < start + written { try? file?.truncate(to: offset) }
            session.persisted = offset
            session.digests = kept
            store.release(session)
        }

        let file: TusDataFile
        do throws(ReceiverError) {
            file = try TusDataFile(path: store.dataPath(session.id))
            // Bytes past `persisted` are what an earlier cut did not keep.
            try file.truncate(to: start)
        } catch {
            store.release(session)
            return GCSFailure(status: 500, message: error.message, reason: "backendError").answer
        }

        do throws(ReceiverError) {
            while var chunk = try await reader.next() {
                bodyBytes += Int64(chunk.readableBytes)
                if let length = receipt.length, bodyBytes > length {
                    throw .badRequest("The body is longer than the \(length) bytes its Content-Range announces")
                }
                if let maxSize, start + written + Int64(chunk.readableBytes) - skip > maxSize {
                    throw .payloadTooLarge("The object would be larger than the receiver's limit of \(maxSize) bytes")
                }
                let skipped = Int(min(skip, Int64(chunk.readableBytes)))
                chunk.moveReaderIndex(forwardBy: skipped)
                skip -= Int64(skipped)
                guard chunk.readableBytes > 0 else { continue }
                try file.write(chunk, at: start + written)
                chunk.withUnsafeReadableBytes { bytes in
                    // Hashed in pieces that end on 256 KiB boundaries, to remember the state at each.
                    var rest = bytes[...]
                    while !rest.isEmpty {
                        let toBoundary = Int(granularity - (start + written) % granularity)
                        let piece = rest.prefix(toBoundary)
                        digests.update(UnsafeRawBufferPointer(rebasing: piece))
                        written += Int64(piece.count)
                        rest = rest.dropFirst(piece.count)
                        if (start + written) % granularity == 0 { boundary = (start + written, digests) }
                    }
                }
            }
        } catch {
            switch error {
            case .resetConnection, .clientGone:
                settle(at: boundary.offset, boundary.digests, file: file)
                throw error
            case .requestTimeout:
                settle(at: boundary.offset, boundary.digests, file: file)
                return GCSFailure(status: 408, message: error.message, reason: "requestTimeout").answer
            default:
                settle(at: start, receipt.session.digests, file: file)
                return GCSFailure(status: error.status ?? 500, message: error.message, reason: "invalid").answer
            }
        }

        if let length = receipt.length, bodyBytes < length {
            settle(at: start, receipt.session.digests, file: file)
            return GCSFailure.invalid("The body has \(bodyBytes) bytes; its Content-Range announces \(length)").answer
        }
        session.persisted = start + written
        session.digests = digests
        guard receipt.isFinal else {
            store.release(session)
            return state(of: session, baseURL: baseURL)
        }
        if let total = receipt.total ?? session.size, session.persisted != total {
            settle(at: start, receipt.session.digests, file: file)
            return GCSFailure.invalid("The upload ends at \(start + written) bytes, not at its size \(total)").answer
        }
        return finish(&session, hashes: receipt.hashes, baseURL: baseURL)
    }
}
