import WireRules

/// `Upload-Metadata`: comma-separated pairs of a key and an optional base64 value,
/// e.g. `filename ZG9nLmpwZw==,filetype aW1hZ2UvanBlZw==,is_confidential`.
struct TusMetadata: Equatable, Codable {
    /// The header as the client sent it, echoed back on HEAD.
    var header: String
    /// Decoded values by key; a key without a value maps to "".
    var values: [String: String]

    init() {
        header = ""
        values = [:]
    }

    /// Refuses what the spec forbids (`WireRules.TusMetadata.decode`). Values are read as
    /// UTF-8; invalid sequences become U+FFFD rather than failing the upload.
    init(parsing header: String) throws(TusFailure) {
        self.header = header
        do {
            let pairs = try WireRules.TusMetadata.decode(header)
            values = Dictionary(
                uniqueKeysWithValues: pairs.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) })
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// The name to save the finished upload under: `filename`, else `name` (Uppy sends both).
    var filename: String? {
        [values["filename"], values["name"]].compactMap { $0 }.first { !$0.isEmpty }
    }

    /// The MIME type the client claims: `filetype`, else `type`.
    var filetype: String? {
        [values["filetype"], values["type"]].compactMap { $0 }.first { !$0.isEmpty }
    }
}
