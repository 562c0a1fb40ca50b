import Foundation
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
        timeout = try Self.seconds(container, .timeout)
        connectTimeout = try Self.seconds(container, .connectTimeout)
        idleTimeout = try Self.seconds(container, .idleTimeout)
        transfer = try container.decodeIfPresent(String.self, forKey: .transfer)
        if let bytes = try? container.decodeIfPresent(Int.self, forKey: .chunkSize) {
            chunkSize = String(bytes)
        } else {
            chunkSize = try container.decodeIfPresent(String.self, forKey: .chunkSize)
        }
        parallelParts = try container.decodeIfPresent(Int.self, forKey: .parallelParts)
        bucket = try container.decodeIfPresent(String.self, forKey: .bucket)
        prefix = try container.decodeIfPresent(String.self, forKey: .prefix)
        endpoint = try container.decodeIfPresent(String.self, forKey: .endpoint)
        region = try container.decodeIfPresent(String.self, forKey: .region)
        awsProfile = try container.decodeIfPresent(String.self, forKey: .awsProfile)
        if let bytes = try? container.decodeIfPresent(Int.self, forKey: .partSize) {
            partSize = String(bytes)
        } else {
            partSize = try container.decodeIfPresent(String.self, forKey: .partSize)
        }
        partConcurrency = try container.decodeIfPresent(Int.self, forKey: .partConcurrency)
        storageClass = try container.decodeIfPresent(String.self, forKey: .storageClass)
        acl = try container.decodeIfPresent(String.self, forKey: .acl)
        checksum = try container.decodeIfPresent(String.self, forKey: .checksum)
        imageQuality = try container.decodeIfPresent(Int.self, forKey: .imageQuality)
        imageMaxDim = try container.decodeIfPresent(Int.self, forKey: .imageMaxDim)
        if let bytes = try? container.decodeIfPresent(Int.self, forKey: .imageMaxBytes) {
            imageMaxBytes = String(bytes)
        } else {
            imageMaxBytes = try container.decodeIfPresent(String.self, forKey: .imageMaxBytes)
        }
        imageFormat = try container.decodeIfPresent(String.self, forKey: .imageFormat)
        imageKeepMetadata = try container.decodeIfPresent(Bool.self, forKey: .imageKeepMetadata)
        fields = try container.decodeIfPresent([Pair].self, forKey: .fields)
        headers = try container.decodeIfPresent([Pair].self, forKey: .headers)
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
        try refuseTableHeadersWithoutKey(in: text, path: path)
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

    /// toml++ (inside TOMLKit 0.6.0) assumes that a table header's name starts with a key character: a
    /// header such as `[{a}]`, `[[[a]]]` or `[=` at the start of a line fails an assertion (a debug
    /// build aborts, a release one runs into undefined behaviour; toml++ issue #294) instead of being
    /// reported. So the headers are checked here first, skipping strings, comments and array values.
    private static func refuseTableHeadersWithoutKey(in text: String, path: String) throws {
        let bytes = Array(text.utf8)
        let (lf, space, tab) = (UInt8(ascii: "\n"), UInt8(ascii: " "), UInt8(ascii: "\t"))
        let (backslash, quote, apostrophe) = (UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"))
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var lineStart = index
        // `[` and `{` of values still open; only at 0 can a line start a header.
        var depth = 0
        var atLineStart = true

        func isBlank(_ at: Int) -> Bool { at < bytes.count && (bytes[at] == space || bytes[at] == tab) }
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
                atLineStart = depth == 0
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
                continue
            case UInt8(ascii: "[") where atLineStart:
                // The header's own brackets are not a value's: its `]` only brings depth back to 0.
                var next = index + 1
                while isBlank(next) { next += 1 }
                if next == index + 1, next < bytes.count, bytes[next] == UInt8(ascii: "[") {
                    next += 1
                    while isBlank(next) { next += 1 }
                }
                if next < bytes.count, !isKeyStart(bytes[next]), bytes[next] != UInt8(ascii: "]") {
                    let column = bytes[lineStart..<next].count(where: { $0 & 0xC0 != 0x80 }) + 1
                    throw BadInput("\(path):\(line):\(column): expected a table name (a key) after '['")
                }
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default:
                break
            }
            atLineStart = false
            index += 1
        }
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
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(
                of: ".[", with: "[")
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
