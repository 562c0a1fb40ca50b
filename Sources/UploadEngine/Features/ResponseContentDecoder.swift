/// Turns a response body into something to show: a JSON tree, text, or a
/// binary summary.
enum ResponseContentDecoder {
    static func decode(_ body: [UInt8], contentType: String?, truncated: Bool) -> UploadResponse.Content {
        guard !body.isEmpty else { return .empty }
        let type = contentType?.lowercased() ?? ""
        // Bytes, not Foundation's `contains`, which went through NSString.
        let declaredJSON = type.utf8.indices.contains { type.utf8[$0...].starts(with: "json".utf8) }
        let firstByte = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) })
        let looksJSON = firstByte == UInt8(ascii: "{") || firstByte == UInt8(ascii: "[")
        if declaredJSON || looksJSON {
            do {
                return .json(try JSONParser.parse(body))
            } catch {
                if declaredJSON || isText(body) {
                    let reason = truncated ? "the body was cut at the in-memory cap" : error.description
                    return .invalidJSON(text: String(decoding: body, as: UTF8.self), error: reason)
                }
            }
        }
        if isText(body) { return .text(String(decoding: body, as: UTF8.self)) }
        let kind = type.isEmpty ? "binary data" : type.split(separator: ";").first.map(String.init) ?? type
        return .binary(summary: "\(body.count) bytes of \(kind)")
    }

    /// Valid UTF-8 without NUL or other C0 controls besides tab, CR and LF.
    static func isText(_ body: [UInt8]) -> Bool {
        guard String(validating: body, as: UTF8.self) != nil else { return false }
        return !body.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D || $0 == 0x7F }
    }
}
