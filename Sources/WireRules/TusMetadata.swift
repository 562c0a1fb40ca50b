/// tus 1.0 `Upload-Metadata`: comma-separated pairs of a key and an optional
/// base64 value, e.g. `filename ZG9nLmpwZw==,filetype aW1hZ2UvanBlZw==,is_confidential`.
public enum TusMetadata {
    /// The header for `pairs`; an empty value sends the key alone. The keys
    /// must pass ``problem(withKey:)``.
    public static func encode(_ pairs: [(key: String, value: String)]) -> String {
        pairs.map { pair in
            pair.value.isEmpty
                ? pair.key : pair.key + " " + String(decoding: Base64.encode(Array(pair.value.utf8)), as: UTF8.self)
        }.joined(separator: ",")
    }

    /// Why `key` cannot be a metadata key (ASCII, no spaces or commas), or nil.
    public static func problem(withKey key: String) -> String? {
        if key.isEmpty { return "a tus metadata key cannot be empty" }
        if !isKey(key) {
            return "tus metadata key \(String(reflecting: key)) must be ASCII with no spaces or commas"
        }
        return nil
    }

    /// The pairs of a header in order, a value as the bytes it encodes (nil
    /// for a key alone). Refuses what the spec forbids: empty or spaced keys,
    /// duplicate keys, values that are not base64. A header of spaces only
    /// is no pairs.
    public static func decode(_ header: String) throws(Refusal) -> [(key: String, value: [UInt8]?)] {
        guard header.contains(where: { $0 != " " }) else { return [] }
        var pairs: [(key: String, value: [UInt8]?)] = []
        var seen: Set<String> = []
        for pair in header.split(separator: ",", omittingEmptySubsequences: false) {
            let words = pair.split(separator: " ", omittingEmptySubsequences: true)
            guard let key = words.first.map(String.init), words.count <= 2 else {
                throw Refusal(reason: "\"\(pair)\" is not a key and a base64 value")
            }
            guard seen.insert(key).inserted else { throw Refusal(reason: "the key \"\(key)\" appears twice") }
            guard isKey(key) else {
                throw Refusal(reason: "the key \"\(key)\" holds characters other than visible ASCII")
            }
            if words.count == 2 {
                guard let value = Base64.decode(words[1]) else {
                    throw Refusal(reason: "the value of \"\(key)\" is not base64")
                }
                pairs.append((key, value))
            } else {
                pairs.append((key, nil))
            }
        }
        return pairs
    }

    /// Why a header was refused.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public let reason: String
        public init(reason: String) { self.reason = reason }
        public var description: String { "Upload-Metadata: " + reason }
    }

    /// Visible ASCII with no comma: the pairs are split on commas and spaces.
    private static func isKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }
    }
}
