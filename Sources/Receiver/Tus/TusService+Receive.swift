import FoundationEssentials
import NIOCore

// Streaming an accepted PATCH (or creation-with-upload) body onto the upload's bytes.
extension TusService {
    /// Writes the body at the receipt's offset and answers with the new `Upload-Offset`.
    ///
    /// Bytes are kept as they arrive, so a connection that drops (or is reset by a knob) leaves the upload
    /// at the last byte written and the client resumes there. A body with `Upload-Checksum` is all or
    /// nothing: until it is verified none of it counts. Throws only when no answer can be written
    /// (``ReceiverError/resetConnection``, ``ReceiverError/clientGone(_:)``); the upload is released either way.
    func receive(
        _ receipt: TusReceipt, reader: inout IncomingBodyReader, record: inout TusRequestRecord
    ) async throws(ReceiverError) -> Answer {
        var upload = receipt.upload
        let start = receipt.start
        var written: Int64 = 0
        var hasher = receipt.checksum.map { TusHasher($0.algorithm) }

        /// Ends the request with the upload at `offset` (`start` discards this body).
        func settle(at offset: Int64, file: TusDataFile?) {
            if offset < start + written { try? file?.truncate(to: offset) }
            upload.offset = offset
            record.offsetAfter = offset
            record.keptBytes = offset - start
            store.release(upload)
        }
        func failed(_ failure: TusFailure, file: TusDataFile?) -> Answer {
            settle(at: start, file: file)
            var failure = failure
            failure.headers.append(("Upload-Offset", String(start)))
            if receipt.isCreation { failure.headers.append(("Location", location(upload.id))) }
            return .tus(failure)
        }

        let file: TusDataFile
        do throws(ReceiverError) {
            file = try TusDataFile(path: store.dataPath(upload.id))
            try file.truncate(to: start)
        } catch {
            return failed(TusFailure(status: 500, message: error.message), file: nil)
        }

        do throws(ReceiverError) {
            if receipt.resetAfter == 0 { throw .resetConnection }
            while var chunk = try await reader.next() {
                if let maxChunk = knobs.maxChunk, reader.bytesRead > maxChunk {
                    throw .payloadTooLarge("the chunk is larger than the \(maxChunk) bytes allowed (maxChunk)")
                }
                if let room = receipt.room, written + Int64(chunk.readableBytes) > room {
                    throw .payloadTooLarge(
                        "the body goes past "
                            + (upload.length.map { "the upload's length \($0)" } ?? "Tus-Max-Size \(room + start)"))
                }
                var resetting = false
                if let resetAfter = receipt.resetAfter, written + Int64(chunk.readableBytes) >= resetAfter {
                    chunk = chunk.getSlice(at: chunk.readerIndex, length: Int(resetAfter - written))!
                    resetting = true
                }
                chunk.withUnsafeReadableBytes { hasher?.update($0) }
                try file.write(chunk, at: start + written)
                written += Int64(chunk.readableBytes)
                if hasher == nil { store.setOffset(upload.id, start + written) }
                if resetting { throw .resetConnection }
            }
            // A body smaller than the knob's byte count is reset at its end: kept, but never answered.
            if receipt.resetAfter != nil { throw .resetConnection }
        } catch {
            switch error {
            case .resetConnection, .clientGone:
                settle(at: hasher == nil ? start + written : start, file: file)
                throw error
            default:
                return failed(TusFailure(status: error.status ?? 500, message: error.message), file: file)
            }
        }

        if let checksum = receipt.checksum, let hasher {
            if receipt.failChecksum {
                return failed(
                    TusFailure(
                        status: TusProtocol.checksumMismatch,
                        message: "the receiver fails the first \(knobs.checksumFailFirst) checksum(s)"
                            + " (checksumFailFirst); the chunk was discarded"),
                    file: file)
            }
            if hasher.finalize() != checksum.digest {
                return failed(
                    TusFailure(
                        status: TusProtocol.checksumMismatch,
                        message: "the body's \(checksum.algorithm.rawValue) does not match Upload-Checksum;"
                            + " the chunk was discarded"),
                    file: file)
            }
        }

        upload.offset = start + written
        record.offsetAfter = upload.offset
        record.keptBytes = written
        if let expires = expiry(), !upload.isComplete {
            upload.expires = expires
            try? store.save(upload)
        }
        var headers = [("Upload-Offset", String(upload.offset))]
        if receipt.isCreation { headers.insert(("Location", location(upload.id)), at: 0) }
        if let expires = upload.expiresHeader { headers.append(("Upload-Expires", expires)) }
        var answer = Answer.tus(receipt.isCreation ? 201 : 204, headers)
        if upload.isComplete && !upload.isPartial {
            do throws(ReceiverError) {
                record.savedAs = try complete(&upload)
                answer.files = 1
            } catch {
                return failed(TusFailure(status: 500, message: error.message), file: file)
            }
        }
        store.release(upload)
        if !upload.isComplete, takeTurn(\.expiries, limit: knobs.expireFirst) {
            store.remove(upload.id)
        }
        return answer
    }
}
