import FormData
import FoundationEssentials

/// What Hoist never prints in clear: credentials in headers, URLs and
/// fields marked secret.
public enum Secrets {
    public static let mask = "••••••"

    /// A header or field whose name holds one of these (in any case) is
    /// secret: `Authorization`, `Private-Token`, `X-Api-Key`, `Cookie`,
    /// `X-Amz-Security-Token`, `session_id`, `db_password`...
    static let secretWords = [
        "auth", "token", "secret", "session", "cookie", "password", "passwd", "signature", "credential",
        "apikey", "api_key", "api-key", "privatekey", "private_key", "accesskey", "access_key",
    ]
    /// Headers also match a bare `key` (`X-Api-Key`, `Ocp-Apim-Subscription-Key`). Fields do not:
    /// a presigned POST's `key` is the object's name, which the user needs to see.
    static let secretHeaderWords = secretWords + ["key"]

    /// A header is secret when its name says so, or when the user marked it
    /// (`marked` holds names in any case: header names are case-insensitive).
    public static func isSecretHeader(_ name: String, marked: Set<String> = []) -> Bool {
        if marked.contains(where: { $0.lowercased() == name.lowercased() }) { return true }
        var name = name
        return name.withUTF8 { bytes in secretHeaderWordBytes.contains { containsIgnoringASCIICase(bytes, $0) } }
    }

    private static let secretHeaderWordBytes = secretHeaderWords.map { Array($0.utf8) }

    private static let secretWordBytes = secretWords.map { Array($0.utf8) }
    private static let shortestSecretWord = secretWords.map(\.utf8.count).min()!

    /// A field is secret when the user marked it, or when its name says so.
    /// Compares ASCII-lowercased bytes: it runs for every key of every
    /// answer recorded in the history.
    public static func isSecretField(_ name: String, marked: Set<String> = []) -> Bool {
        if !marked.isEmpty, marked.contains(name) { return true }
        // Most keys ("id", "url", "status") are too short to hold a word.
        guard name.utf8.count >= shortestSecretWord else { return false }
        var name = name
        return name.withUTF8 { bytes in secretWordBytes.contains { containsIgnoringASCIICase(bytes, $0) } }
    }

    /// Whether `word` (lowercase) occurs in `bytes`, ASCII letters compared
    /// in either case. In place: no lowercased copy per key.
    private static func containsIgnoringASCIICase(_ bytes: UnsafeBufferPointer<UInt8>, _ word: [UInt8]) -> Bool {
        guard bytes.count >= word.count else { return false }
        search: for start in 0...(bytes.count - word.count) {
            for offset in word.indices {
                let byte = bytes[start + offset]
                if (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) != word[offset] { continue search }
            }
            return true
        }
        return false
    }

    /// A header line for display: the value masked when the header is secret.
    /// `Authorization: Basic …` keeps its scheme so the reader knows what was sent.
    public static func displayValue(header name: String, value: String, marked: Set<String> = []) -> String {
        guard isSecretHeader(name, marked: marked) else { return value }
        if let space = value.firstIndex(of: " "), name.lowercased().hasSuffix("authorization") {
            return String(value[..<space]) + " " + mask
        }
        return mask
    }

    /// The URL with any password in its user info masked (a user part with
    /// no password, `https://TOKEN@host/`, is masked whole), and the values of
    /// query parameters that carry credentials (`token=`, `api_key=`, a
    /// presigned URL's `X-Amz-Signature=` and `X-Amz-Credential=`...).
    public static func displayURL(_ url: String) -> String {
        let ranges = credentialRanges(inURL: url)
        guard !ranges.isEmpty else { return url }
        var bytes = Array(url.utf8)
        for range in ranges.reversed() { bytes.replaceSubrange(range, with: mask.utf8) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where `displayURL` masks: UTF-8 offsets into `url`, in order (a range
    /// may be empty, as the password of `user:@host`).
    public static func credentialRanges(inURL url: String) -> [Range<Int>] {
        let bytes = Array(url.utf8)
        // Most URLs carry neither credentials nor a query: nothing to mask.
        guard bytes.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "@") }) else { return [] }
        let fragment = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        let query = bytes[..<fragment].firstIndex(of: UInt8(ascii: "?"))
        let headEnd = query ?? fragment
        var ranges: [Range<Int>] = []
        if let schemeEnd = firstIndex(of: Array("://".utf8), in: bytes[..<headEnd]) {
            let start = schemeEnd + 3
            let authorityEnd = bytes[start..<headEnd].firstIndex(of: UInt8(ascii: "/")) ?? headEnd
            if let at = bytes[start..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
                // `user:password@` keeps the user; a lone `TOKEN@` is the credential itself.
                let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":"))
                ranges.append(colon.map { ($0 + 1)..<at } ?? start..<at)
            }
        }
        guard let query else { return ranges }
        var pairStart = query + 1
        while pairStart <= fragment {
            let pairEnd = bytes[pairStart..<fragment].firstIndex(of: UInt8(ascii: "&")) ?? fragment
            if let equals = bytes[pairStart..<pairEnd].firstIndex(of: UInt8(ascii: "=")),
                isSecretParameter(String(decoding: bytes[pairStart..<equals], as: UTF8.self))
            {
                ranges.append((equals + 1)..<pairEnd)
            }
            pairStart = pairEnd + 1
        }
        return ranges
    }

    private static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (haystack.startIndex...(haystack.endIndex - needle.count)).first {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    private static func isSecretParameter(_ name: String) -> Bool {
        let lower = name.lowercased()
        return isSecretField(name) || lower.contains("signature") || lower.contains("credential")
            || ["sig", "key", "auth", "access_token"].contains(lower)
    }

    /// The secret values a request sends: secret fields and headers, and the
    /// URL's password. A server may echo them back in its answer.
    public static func values(in request: UploadRequest, marked: Set<String> = []) -> Set<String> {
        var values = Set(
            request.headers.filter { isSecretHeader($0.name) || isSecretField($0.name, marked: marked) }.flatMap {
                // "Bearer abc" is echoed as a whole or as "abc".
                [$0.value] + $0.value.split(separator: " ").dropFirst().map(String.init)
            })
        if case .multipart(let form) = request.body {
            for part in form.parts where part.filename == nil && isSecretField(part.name, marked: marked) {
                if case .bytes(let bytes) = part.content { values.insert(String(decoding: bytes, as: UTF8.self)) }
            }
        }
        if request.url.utf8.contains(UInt8(ascii: "@")), let password = URLComponents(string: request.url)?.password {
            values.insert(password)
        }
        return values.filter { !$0.isEmpty }
    }

    /// A JSON value with the values of secret-looking keys (`token`,
    /// `password`...) or marked ones replaced by the mask, at any depth; so
    /// is any string holding one of `values` (a secret the server echoed).
    public static func masked(_ value: JSONValue, marked: Set<String> = [], values: Set<String> = []) -> JSONValue {
        // Most values (every history line) hold nothing to mask: looked through, not rebuilt.
        guard holdsSecret(value, marked: marked, values: values) else { return value }
        switch value {
        case .object(let members):
            return .object(
                members.map { member in
                    isSecretField(member.key, marked: marked)
                        ? .init(member.key, .string(mask))
                        : .init(member.key, masked(member.value, marked: marked, values: values))
                })
        case .array(let items): return .array(items.map { masked($0, marked: marked, values: values) })
        case .string: return .string(mask)
        default: return value
        }
    }

    /// The texts to hide in an answer shown as text: `values` (secrets the
    /// request sent, which the server may echo) and the strings held under
    /// secret-looking or marked keys of `json`.
    public static func hiddenTexts(in json: JSONValue?, marked: Set<String> = [], values: Set<String> = [])
        -> Set<String>
    {
        var texts = values
        func walk(_ value: JSONValue, underSecret: Bool) {
            switch value {
            case .object(let members):
                for member in members {
                    walk(member.value, underSecret: underSecret || isSecretField(member.key, marked: marked))
                }
            case .array(let items): items.forEach { walk($0, underSecret: underSecret) }
            case .string(let text) where underSecret: texts.insert(text)
            case .number(let literal) where underSecret: texts.insert(literal)
            default: break
            }
        }
        if let json { walk(json, underSecret: false) }
        return texts.filter { !$0.isEmpty }
    }

    /// `text` with each of `hidden` replaced by the mask, longest first.
    public static func masked(_ text: String, hiding hidden: Set<String>) -> String {
        guard !hidden.isEmpty else { return text }
        return hidden.sorted { $0.count > $1.count }.reduce(text) {
            $0.replacing($1, with: mask)
        }
    }

    private static func holdsSecret(_ value: JSONValue, marked: Set<String>, values: Set<String>) -> Bool {
        switch value {
        case .object(let members):
            return members.contains {
                isSecretField($0.key, marked: marked) || holdsSecret($0.value, marked: marked, values: values)
            }
        case .array(let items): return items.contains { holdsSecret($0, marked: marked, values: values) }
        case .string(let text): return values.contains { text.contains($0) }
        default: return false
        }
    }
}
