import FoundationEssentials
import Hummingbird
import NIOCore

/// Reads an upload's body by its Content-Type into a ``ReceivedUpload``: multipart fields and files,
/// urlencoded fields, echoed JSON, or the whole body saved as one file.
struct RequestBodyDecoder: Sendable {
    static let maxInMemoryBody = 8 << 20

    let directory: UploadDirectory
    let maxParts: Int
    let maxTotalFieldBytes: Int

    /// Reads the body according to its Content-Type.
    func decode(
        _ request: Request, reader: inout IncomingBodyReader
    ) async throws(ReceiverError) -> ReceivedUpload {
        let contentType = request.headers[.contentType]
        var upload = ReceivedUpload(
            method: request.method.rawValue, path: request.uri.path, contentType: contentType, bodyBytes: 0)
        let mediaType = contentType.map(MediaType.init(parsing:))

        if let mediaType, mediaType.isMultipartFormData {
            guard let boundary = mediaType.parameters["boundary"], !boundary.isEmpty else {
                throw .badRequest(
                    "multipart/form-data without a boundary parameter:"
                        + " send Content-Type: multipart/form-data; boundary=...")
            }
            let handler = MultipartStreamHandler(
                boundary: boundary, directory: directory, maxParts: maxParts, maxTotalFieldBytes: maxTotalFieldBytes)
            do throws(ReceiverError) {
                while let chunk = try await reader.next() { try handler.feed(chunk) }
                try handler.finish()
            } catch {
                handler.abort()
                throw error
            }
            upload.fields = handler.fields
            upload.files = handler.files
        } else if let mediaType, mediaType.isURLEncodedForm {
            let body = try await collect(&reader, what: "an application/x-www-form-urlencoded body")
            let text = String(decoding: body.readableBytesView, as: UTF8.self)
            upload.fields = PercentDecoding.pairs(text, plusAsSpace: true).map { .init(name: $0.name, value: $0.value) }
        } else if let mediaType, mediaType.isJSON {
            try await receiveJSON(into: &upload, reader: &reader)
        } else {
            upload.files = [try await receiveRaw(reader: &reader, contentType: contentType, path: request.uri.path)]
        }
        upload.bodyBytes = reader.bytesRead
        return upload
    }

    /// Collects a small body in memory; larger than 8 MiB is a 413.
    private func collect(_ reader: inout IncomingBodyReader, what: String) async throws(ReceiverError) -> ByteBuffer {
        var body = ByteBuffer()
        while let chunk = try await reader.next() {
            guard body.readableBytes + chunk.readableBytes <= Self.maxInMemoryBody else {
                throw .payloadTooLarge("\(what) is larger than \(Self.maxInMemoryBody >> 20) MiB")
            }
            body.writeImmutableBuffer(chunk)
        }
        return body
    }

    /// Echoes JSON up to 8 MiB; a larger JSON body is saved as a raw file instead.
    private func receiveJSON(
        into upload: inout ReceivedUpload, reader: inout IncomingBodyReader
    ) async throws(ReceiverError) {
        var body = ByteBuffer()
        while !reader.finished, body.readableBytes <= Self.maxInMemoryBody {
            guard let chunk = try await reader.next() else { break }
            body.writeImmutableBuffer(chunk)
        }
        if body.readableBytes > Self.maxInMemoryBody {
            upload.files = [
                try await receiveRaw(
                    reader: &reader, contentType: upload.contentType, path: upload.path, prefix: body)
            ]
            return
        }
        let data = Data(body.readableBytesView)
        do {
            upload.json = try JSONDecoder().decode(ReceivedJSON.self, from: data)
        } catch {
            throw .badRequest("invalid JSON: \(Self.describeInvalidJSON(data))")
        }
    }

    /// Saves the whole body as one file named after the last URL path component.
    private func receiveRaw(
        reader: inout IncomingBodyReader, contentType: String?, path: String, prefix: ByteBuffer? = nil
    ) async throws(ReceiverError) -> ReceivedUpload.File {
        let last = path.split(separator: "/").last.map { PercentDecoding.decodeString($0, plusAsSpace: false) }
        let filename = last ?? "body"
        let sink = try directory.createFile(for: filename)
        do throws(ReceiverError) {
            if let prefix { try sink.write(prefix) }
            while let chunk = try await reader.next() { try sink.write(chunk) }
            let sha256 = try sink.finish()
            return .init(
                name: "", filename: filename, contentType: contentType, size: sink.size, sha256: sha256,
                savedAs: sink.savedAs)
        } catch {
            sink.abort()
            throw error
        }
    }

    /// JSONDecoder only says "not valid JSON"; the syntax check says where.
    private static func describeInvalidJSON(_ data: Data) -> String {
        JSONSyntaxCheck.problem(in: Array(data)) ?? "The given data was not valid JSON."
    }
}
