import FoundationEssentials
import TOMLKit
import UploadPlan

/// One `[name]` table of the profiles file, as written. Unknown keys are
/// refused by name, so a typo such as `retires` is not silently ignored.
struct RawProfile: Decodable, Sendable {
    struct Pair: Decodable, Sendable {
        var name: String
        var value: String
        var secret: Bool?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, value, secret
        }

        init(from decoder: any Decoder) throws {
            try refuseUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            value = try container.decode(String.self, forKey: .value)
            secret = try container.decodeIfPresent(Bool.self, forKey: .secret)
        }
    }

    var url: String?
    /// S3: `transfer = "s3"` with `bucket` (and `prefix`), or an `s3://` url.
    var bucket: String?
    var prefix: String?
    /// The keys of `TargetOption.all`, as text each option reads (a list's items one by one).
    var options: [String: [String]] = [:]
    var fields: [Pair]?
    var headers: [Pair]?

    /// The target options' keys, with the profile's own around them.
    static let knownKeys = ["url"] + TargetOption.all.map(\.key) + ["bucket", "prefix", "fields", "headers"]

    init(from decoder: any Decoder) throws {
        try refuseUnknownKeys(in: decoder, known: Self.knownKeys)
        let container = try decoder.container(keyedBy: AnyKey.self)
        func key(_ name: String) -> AnyKey { AnyKey(stringValue: name) }
        url = try container.decodeIfPresent(String.self, forKey: key("url"))
        bucket = try container.decodeIfPresent(String.self, forKey: key("bucket"))
        prefix = try container.decodeIfPresent(String.self, forKey: key("prefix"))
        fields = try container.decodeIfPresent([Pair].self, forKey: key("fields"))
        headers = try container.decodeIfPresent([Pair].self, forKey: key("headers"))
        for option in TargetOption.all where container.contains(key(option.key)) {
            options[option.key] = try Self.values(container, key(option.key), as: option.profileType)
        }
    }

    /// The value as the option's text; a value of another TOML type is refused ("expected a number").
    private static func values(
        _ container: KeyedDecodingContainer<AnyKey>, _ key: AnyKey, as type: TargetOption.ProfileType
    ) throws -> [String] {
        switch type {
        case .text: return [try container.decode(String.self, forKey: key)]
        case .integer: return [String(try container.decode(Int.self, forKey: key))]
        // `timeout = 30` and `timeout = 2.5` both mean seconds.
        case .seconds:
            if let whole = try? container.decode(Int.self, forKey: key) { return [String(whole)] }
            return [String(try container.decode(Double.self, forKey: key))]
        // `chunk_size = 8388608` and `chunk_size = "8M"` are both a size.
        case .size:
            if let bytes = try? container.decode(Int.self, forKey: key) { return [String(bytes)] }
            return [try container.decode(String.self, forKey: key)]
        case .boolean: return [String(try container.decode(Bool.self, forKey: key))]
        case .list: return try container.decode([String].self, forKey: key)
        }
    }
}

/// Any key, to list what a table really holds.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Throws "verify.retires: unknown key (did you mean retries?)" for the first key not in `known`.
private func refuseUnknownKeys(in decoder: any Decoder, known: [String]) throws {
    let container = try decoder.container(keyedBy: AnyKey.self)
    guard let unknown = container.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first else {
        return
    }
    let hint =
        KeySuggestion.nearest(to: unknown, in: known).map { "did you mean \($0)?" }
        ?? "use one of \(known.joined(separator: ", "))"
    throw DecodingError.dataCorrupted(
        .init(
            codingPath: decoder.codingPath + [AnyKey(stringValue: unknown) as any CodingKey],
            debugDescription: "unknown key (\(hint))"))
}

extension Profile {
    /// Every table of the file, as written; a mistake is named with its line and column.
    static func parse(_ text: String, path: String) throws -> [String: RawProfile] {
        try refuseWhatTOMLKitCannotReport(in: text, path: path)
        do {
            return try TOMLDecoder().decode([String: RawProfile].self, from: text)
        } catch let error as TOMLParseError {
            throw BadInput("\(path):\(error.source.begin.line):\(error.source.begin.column): \(error.description)")
        } catch let error as DecodingError {
            throw BadInput("\(path): \(describe(error))")
        } catch {
            throw BadInput("\(path) is not a valid profiles file: \(error)")
        }
    }

    /// toml++ (inside TOMLKit 0.6.0) assumes what it has not checked in three places the fuzzer found:
    /// that a table header's name starts with a key character (`[{a}]`, `[[[a]]]`, `[=` at the start
    /// of a line; toml++ issue #294), that a date's `T` is followed by a digit (`1979-05-27T:`), and
    /// that an array's value is not `}` (`[}`). Each fails an assertion (a debug build aborts, a
    /// release one runs into undefined behaviour) instead of being reported. So they are checked here
    /// first, skipping strings and comments.
    private static func refuseWhatTOMLKitCannotReport(in text: String, path: String) throws {
        let bytes = Array(text.utf8)
        let (lf, space, tab) = (UInt8(ascii: "\n"), UInt8(ascii: " "), UInt8(ascii: "\t"))
        let (backslash, quote, apostrophe) = (UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"))
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var lineStart = index
        // The `[` and `{` of values still open: a line starts a header only when there are none.
        var open: [UInt8] = []
        // The last byte other than a blank, a line break or a comment: `=` or, in an array, `[` or `,`
        // come before a value.
        var lastSignificant = lf
        var atLineStart = true
        // A header holds keys only, which may look like dates.
        var inHeader = false

        func isBlank(_ at: Int) -> Bool { at < bytes.count && (bytes[at] == space || bytes[at] == tab) }
        func column(of position: Int) -> Int { bytes[lineStart..<position].count(where: { $0 & 0xC0 != 0x80 }) + 1 }
        /// Where a value `YYYY-MM-DDT` has no digit after its `T`, if it is one.
        func timeMissing() -> Int? {
            let shape = Array("0000-00-00T".utf8)
            guard bytes.count - index > shape.count else { return nil }
            for (offset, expected) in shape.enumerated() {
                let byte = bytes[index + offset]
                let matches =
                    switch expected {
                    case UInt8(ascii: "0"): isDigit(byte)
                    case UInt8(ascii: "T"): byte == expected || byte == UInt8(ascii: "t")
                    default: byte == expected
                    }
                guard matches else { return nil }
            }
            let after = index + shape.count
            return isDigit(bytes[after]) ? nil : after
        }
        func newLine(at position: Int) {
            line += 1
            lineStart = position + 1
        }
        func skipString() {
            let delimiter = bytes[index]
            let isEscaping = delimiter == quote
            if bytes.count - index >= 3, bytes[index + 1] == delimiter, bytes[index + 2] == delimiter {
                index += 3
                while index < bytes.count {
                    if isEscaping, bytes[index] == backslash {
                        if index + 1 < bytes.count, bytes[index + 1] == lf { newLine(at: index + 1) }
                        index += 2
                        continue
                    }
                    if bytes[index] == lf { newLine(at: index) }
                    if bytes.count - index >= 3, bytes[index + 1] == delimiter, bytes[index + 2] == delimiter,
                        bytes[index] == delimiter
                    {
                        // Up to two more quotes still belong to the string: `"""a"""""`.
                        index += 3
                        while index < bytes.count, bytes[index] == delimiter { index += 1 }
                        return
                    }
                    index += 1
                }
                return
            }
            index += 1
            while index < bytes.count, bytes[index] != lf {
                if isEscaping, bytes[index] == backslash, index + 1 < bytes.count, bytes[index + 1] != lf {
                    index += 2
                    continue
                }
                index += 1
                if bytes[index - 1] == delimiter { return }
            }
        }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case lf:
                newLine(at: index)
                atLineStart = open.isEmpty
                inHeader = false
                index += 1
                continue
            case space, tab:
                index += 1
                continue
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != lf { index += 1 }
                continue
            case quote, apostrophe:
                skipString()
                atLineStart = false
                lastSignificant = byte
                continue
            case UInt8(ascii: "[") where atLineStart:
                inHeader = true
                // The header's own brackets are not a value's: its `]` finds nothing open, or the `[` of `[[`.
                var next = index + 1
                while isBlank(next) { next += 1 }
                if next == index + 1, next < bytes.count, bytes[next] == UInt8(ascii: "[") {
                    next += 1
                    while isBlank(next) { next += 1 }
                }
                if next < bytes.count, !isKeyStart(bytes[next]), bytes[next] != UInt8(ascii: "]") {
                    throw BadInput("\(path):\(line):\(column(of: next)): expected a table name (a key) after '['")
                }
            case UInt8(ascii: "0")...UInt8(ascii: "9") where index == 0 || !isKeyStart(bytes[index - 1]):
                let isValue =
                    lastSignificant == UInt8(ascii: "=")
                    || (open.last == UInt8(ascii: "[")
                        && (lastSignificant == UInt8(ascii: "[") || lastSignificant == UInt8(ascii: ",")))
                if isValue, !inHeader, let after = timeMissing() {
                    let position = "\(path):\(line):\(column(of: after))"
                    throw BadInput("\(position): expected a time (a digit) after the date's 'T'")
                }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                open.append(byte)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if byte == UInt8(ascii: "}"), open.last == UInt8(ascii: "["),
                    lastSignificant == UInt8(ascii: "[") || lastSignificant == UInt8(ascii: ",")
                {
                    throw BadInput("\(path):\(line):\(column(of: index)): expected a value or ']' in an array, saw '}'")
                }
                _ = open.popLast()
            default:
                break
            }
            atLineStart = false
            lastSignificant = byte
            index += 1
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// What a TOML key can start with: a bare key's character or a quote.
    private static func isKeyStart(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "\""),
            UInt8(ascii: "'"):
            return true
        default:
            return false
        }
    }

    /// "verify.retries: expected a number" rather than DecodingError's dump.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacing(
                ".[", with: "[")
        }
        func kind(_ type: String) -> String {
            switch type {
            case "Int", "Double": return "a number"
            case "String": return "a string"
            case "Bool": return "true or false"
            default: return type
            }
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(kind("\(type)"))"
        case .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            // TOMLKit reports a value of the wrong type as a missing key of the wanted type.
            if context.codingPath.last?.stringValue == key.stringValue,
                let type = context.debugDescription.split(separator: "\"").dropFirst().first
            {
                return "\(path(context.codingPath)): expected \(kind(String(type)))"
            }
            return "\(path(context.codingPath + [key])): missing"
        @unknown default: return "\(error)"
        }
    }
}
