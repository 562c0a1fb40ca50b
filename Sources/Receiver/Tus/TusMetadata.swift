import FoundationEssentials

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

    /// Refuses what the spec forbids: empty or spaced keys, duplicate keys, values that are not base64.
    /// Values are read as UTF-8; invalid sequences become U+FFFD rather than failing the upload.
    init(parsing header: String) throws(TusFailure) {
        self.header = header
        values = [:]
        guard header.contains(where: { $0 != " " }) else { return }
        for pair in header.split(separator: ",", omittingEmptySubsequences: false) {
            let words = pair.split(separator: " ", omittingEmptySubsequences: true)
            guard let key = words.first.map(String.init), words.count <= 2 else {
                throw .badRequest("Upload-Metadata: \"\(pair)\" is not a key and a base64 value")
            }
            guard values[key] == nil else {
                throw .badRequest("Upload-Metadata: the key \"\(key)\" appears twice")
            }
            guard key.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) else {
                throw .badRequest("Upload-Metadata: the key \"\(key)\" holds characters other than visible ASCII")
            }
            if words.count == 2 {
                guard let data = Data(base64Encoded: String(words[1])) else {
                    throw .badRequest("Upload-Metadata: the value of \"\(key)\" is not base64")
                }
                values[key] = String(decoding: data, as: UTF8.self)
            } else {
                values[key] = ""
            }
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
