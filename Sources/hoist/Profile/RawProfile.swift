import FoundationEssentials
import TOMLKit

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
    var method: String?
    var body: String?
    var field: String?
    var expect: [String]?
    var message: String?
    var retries: Int?
    var concurrency: Int?
    /// `"2M"` or a number of bytes per second.
    var limitRate: String?
    var timeout: Double?
    var connectTimeout: Double?
    var idleTimeout: Double?
    var transfer: String?
    /// `"8M"` or a number of bytes.
    var chunkSize: String?
    var parallelParts: Int?
    /// S3: `transfer = "s3"` with `bucket` (and `prefix`), or an `s3://` url.
    var bucket: String?
    var prefix: String?
    var endpoint: String?
    var region: String?
    var awsProfile: String?
    var partSize: String?
    var partConcurrency: Int?
    var storageClass: String?
    var acl: String?
    var checksum: String?
    var imageQuality: Int?
    var imageMaxDim: Int?
    var imageMaxBytes: String?
    var imageFormat: String?
    var imageKeepMetadata: Bool?
    var fields: [Pair]?
    var headers: [Pair]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case url, method, body, field, expect, message, retries, concurrency, timeout
        case limitRate = "limit_rate"
        case connectTimeout = "connect_timeout"
        case idleTimeout = "idle_timeout"
        case transfer
        case chunkSize = "chunk_size"
        case parallelParts = "parallel_parts"
        case bucket, prefix, endpoint, region
        case awsProfile = "aws_profile"
        case partSize = "part_size"
        case partConcurrency = "part_concurrency"
        case storageClass = "storage_class"
        case acl, checksum
        case imageQuality = "image_quality"
        case imageMaxDim = "image_max_dim"
        case imageMaxBytes = "image_max_bytes"
        case imageFormat = "image_format"
        case imageKeepMetadata = "image_keep_metadata"
        case fields, headers
    }

    init(from decoder: any Decoder) throws {
        try refuseUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        field = try container.decodeIfPresent(String.self, forKey: .field)
        expect = try container.decodeIfPresent([String].self, forKey: .expect)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        retries = try container.decodeIfPresent(Int.self, forKey: .retries)
        concurrency = try container.decodeIfPresent(Int.self, forKey: .concurrency)
        limitRate = try Self.size(container, .limitRate)
        timeout = try Self.seconds(container, .timeout)
        connectTimeout = try Self.seconds(container, .connectTimeout)
        idleTimeout = try Self.seconds(container, .idleTimeout)
        transfer = try container.decodeIfPresent(String.self, forKey: .transfer)
        chunkSize = try Self.size(container, .chunkSize)
        parallelParts = try container.decodeIfPresent(Int.self, forKey: .parallelParts)
        bucket = try container.decodeIfPresent(String.self, forKey: .bucket)
        prefix = try container.decodeIfPresent(String.self, forKey: .prefix)
        endpoint = try container.decodeIfPresent(String.self, forKey: .endpoint)
        region = try container.decodeIfPresent(String.self, forKey: .region)
        awsProfile = try container.decodeIfPresent(String.self, forKey: .awsProfile)
        partSize = try Self.size(container, .partSize)
        partConcurrency = try container.decodeIfPresent(Int.self, forKey: .partConcurrency)
        storageClass = try container.decodeIfPresent(String.self, forKey: .storageClass)
        acl = try container.decodeIfPresent(String.self, forKey: .acl)
        checksum = try container.decodeIfPresent(String.self, forKey: .checksum)
        imageQuality = try container.decodeIfPresent(Int.self, forKey: .imageQuality)
        imageMaxDim = try container.decodeIfPresent(Int.self, forKey: .imageMaxDim)
        imageMaxBytes = try Self.size(container, .imageMaxBytes)
        imageFormat = try container.decodeIfPresent(String.self, forKey: .imageFormat)
        imageKeepMetadata = try container.decodeIfPresent(Bool.self, forKey: .imageKeepMetadata)
        fields = try container.decodeIfPresent([Pair].self, forKey: .fields)
        headers = try container.decodeIfPresent([Pair].self, forKey: .headers)
    }

    /// `chunk_size = 8388608` and `chunk_size = "8M"` are both a size, kept as text.
    private static func size(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> String? {
        if let bytes = try? container.decodeIfPresent(Int.self, forKey: key) { return String(bytes) }
        return try container.decodeIfPresent(String.self, forKey: key)
    }

    /// `timeout = 30` and `timeout = 2.5` both mean seconds.
    private static func seconds(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Double? {
        guard container.contains(key) else { return nil }
        if let whole = try? container.decode(Int.self, forKey: key) { return Double(whole) }
        return try container.decode(Double.self, forKey: key)
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
