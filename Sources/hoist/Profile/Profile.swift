import Foundation
import TOMLKit
import TerminalUI
import UploadEngine

/// A saved target with its fields and headers, read from
/// `$XDG_CONFIG_HOME/hoist/profiles.toml` (default `~/.config/hoist/profiles.toml`)
/// and used by `hoist tui --profile NAME` and `hoist send --profile NAME`:
///
///     [verify]
///     url = "https://api.example.com/ocr"
///     method = "POST"              # POST, PUT or PATCH
///     body = "multipart"           # multipart, base64 JSON, raw file, urlencoded, JSON (the UI)
///     field = "image"              # the form field of staged files (the UI; default "file")
///     expect = ["RETCODE=0000"]
///     message = "RETMSG"
///     retries = 3
///     concurrency = 4
///     timeout = 120                # seconds; also connect_timeout, idle_timeout
///     [[verify.fields]]            # in order, as they are sent
///     name = "user_id"
///     value = "42"
///     [[verify.headers]]
///     name = "Authorization"
///     value = "Bearer ${API_TOKEN}" # from the environment; $${ is a literal ${
///     secret = true                 # never shown (Authorization and Cookie never are)
///
/// The file is only ever read. Every string value is expanded (`${VAR}`)
/// and every value checked when the profile is loaded, so a mistake is
/// reported by name before anything is shown or sent.
struct Profile: Sendable {
    /// A text field or a header.
    struct Entry: Sendable, Hashable {
        var name: String
        var value: String
        /// Marked `secret = true` in the file.
        var secret: Bool
        /// The value as written, `${VAR}`s and all, so "save as profile" keeps them.
        var rawValue: String
    }

    let name: String
    var url: String?
    /// The URL as written.
    var rawURL: String?
    var method: UploadRequest.Method?
    var bodyKind: Target.BodyKind?
    /// The form field staged files get (`field`).
    var fileField: String?
    var expectations: [SuccessRule.Expectation]?
    var messagePath: String?
    var retries: Int?
    var concurrency: Int?
    var timeout: Duration?
    var connectTimeout: Duration?
    var idleTimeout: Duration?
    var fields: [Entry] = []
    var headers: [Entry] = []

    static var path: String {
        XDG.directory("XDG_CONFIG_HOME", fallback: ".config") + "/hoist/profiles.toml"
    }

    /// Reads the profile `name`, expands `${VAR}` from `environment` and checks every value.
    static func load(
        _ name: String, from path: String = Profile.path,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> Profile {
        guard let text = try readText(path) else {
            throw BadInput("no profiles file at \(path): create it to use --profile (see the README)")
        }
        let all = try parse(text, path: path)
        guard let raw = all[name] else {
            let names = all.keys.sorted().joined(separator: ", ")
            throw BadInput("no profile \(String(reflecting: name)) in \(path); \(names.isEmpty ? "it has none" : "it has: \(names)")")
        }
        do throws(ProfileValueError) {
            return try Profile(name: name, raw: raw, environment: environment)
        } catch {
            throw BadInput("profile \(String(reflecting: name)): \(error.description)")
        }
    }

    /// The profiles file's text, or `nil` when there is none.
    static func readText(_ path: String) throws -> String? {
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                throw BadInput("cannot read the profiles file \(path): \(isDirectory.boolValue ? "it is a directory" : "permission denied")")
            }
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Every table of the file, as written; a mistake is named with its line and column.
    static func parse(_ text: String, path: String) throws -> [String: RawProfile] {
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

    /// Names of the fields whose values are never printed.
    var secretFieldNames: Set<String> { Set(fields.filter(\.secret).map(\.name)) }
    /// Names of the headers whose values are never printed.
    var secretHeaderNames: Set<String> { Set(headers.filter(\.secret).map(\.name)) }

    /// Applies the profile over the UI's target.
    func apply(to target: inout Target, entries: inout [FormEntry]) {
        if let url { target.url = url }
        if let method { target.method = method }
        if let bodyKind { target.bodyKind = bodyKind }
        if let fileField { target.fileField = fileField }
        if let expectations { target.expectations = expectations }
        if let messagePath { target.messagePath = messagePath }
        if let retries { target.retries = retries }
        if let timeout { target.timeouts.total = timeout }
        if let connectTimeout { target.timeouts.connect = connectTimeout }
        if let idleTimeout { target.timeouts.idle = idleTimeout }
        // `secret = true` masks; otherwise the name decides (password, token, Authorization...).
        entries += fields.map { FormEntry(kind: .field, name: $0.name, value: $0.value, isSecret: $0.secret ? true : nil) }
        entries += headers.map { FormEntry(kind: .header, name: $0.name, value: $0.value, isSecret: $0.secret ? true : nil) }
    }

    /// "verify.retries: expected a number" rather than DecodingError's dump.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
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
        case .valueNotFound(_, let context), .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
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

/// A value in a profile that cannot be used, named by its key.
struct ProfileValueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Profile {
    /// Expands and checks `raw`. Messages quote values as written in the
    /// file, never expanded, so a secret from the environment is not printed.
    init(name: String, raw: RawProfile, environment: [String: String]) throws(ProfileValueError) {
        self.name = name
        func expand(_ text: String?, _ key: String) throws(ProfileValueError) -> String? {
            guard let text else { return nil }
            return try EnvironmentExpansion.expand(text, key: key, environment: environment)
        }
        if let url = try expand(raw.url, "url") {
            do { _ = try UploadEngine.validate(url: url) } catch {
                throw ProfileValueError("url \(String(reflecting: raw.url ?? "")): \(raw.url == url ? error.description : "not a valid http or https URL once expanded")")
            }
            self.url = url
            self.rawURL = raw.url
        }
        if let text = try expand(raw.method, "method") {
            guard let method = UploadRequest.Method(rawValue: text.uppercased()) else {
                throw ProfileValueError("method \(String(reflecting: raw.method ?? "")): use POST, PUT or PATCH")
            }
            self.method = method
        }
        if let text = try expand(raw.body, "body") {
            guard let kind = Target.BodyKind.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw ProfileValueError("body \(String(reflecting: raw.body ?? "")): use one of \(Target.BodyKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.bodyKind = kind
        }
        if let field = try expand(raw.field, "field") {
            guard !field.isEmpty else { throw ProfileValueError("field: the form field name is empty") }
            self.fileField = field
        }
        if let expect = raw.expect {
            var expectations: [SuccessRule.Expectation] = []
            for (index, item) in expect.enumerated() {
                let text = try EnvironmentExpansion.expand(item, key: "expect[\(index)]", environment: environment)
                guard let expectation = SuccessRule.Expectation(parsing: text) else {
                    throw ProfileValueError("expect[\(index)] \(String(reflecting: item)): expected key.path=value")
                }
                expectations.append(expectation)
            }
            self.expectations = expectations
        }
        self.messagePath = try expand(raw.message, "message")
        if let retries = raw.retries {
            guard retries >= 0 else { throw ProfileValueError("retries: must be 0 or more") }
            self.retries = retries
        }
        if let concurrency = raw.concurrency {
            guard concurrency >= 1 else { throw ProfileValueError("concurrency: must be at least 1") }
            self.concurrency = concurrency
        }
        func seconds(_ value: Double?, _ key: String) throws(ProfileValueError) -> Duration? {
            guard let value else { return nil }
            guard value > 0, value.isFinite, value < 1e9 else { throw ProfileValueError("\(key): must be a positive number of seconds") }
            return .milliseconds(Int64((value * 1000).rounded(.up)))
        }
        self.timeout = try seconds(raw.timeout, "timeout")
        self.connectTimeout = try seconds(raw.connectTimeout, "connect_timeout")
        self.idleTimeout = try seconds(raw.idleTimeout, "idle_timeout")
        func entries(_ pairs: [RawProfile.Pair]?, _ key: String) throws(ProfileValueError) -> [Entry] {
            var result: [Entry] = []
            for (index, pair) in (pairs ?? []).enumerated() {
                let at = "\(key)[\(index)]"
                let name = try EnvironmentExpansion.expand(pair.name, key: at + ".name", environment: environment)
                let value = try EnvironmentExpansion.expand(pair.value, key: at + ".value", environment: environment)
                guard !name.isEmpty else { throw ProfileValueError("\(at).name: empty") }
                if key == "headers" {
                    guard !name.contains(where: { $0.isWhitespace || $0 == ":" }) else {
                        throw ProfileValueError("\(at).name \(String(reflecting: pair.name)): a header name cannot contain spaces or \":\"")
                    }
                    guard !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                        throw ProfileValueError("\(at).value (\(name)): a header value cannot contain CR or LF")
                    }
                }
                result.append(Entry(name: name, value: value, secret: pair.secret ?? false, rawValue: pair.value))
            }
            return result
        }
        self.fields = try entries(raw.fields, "fields")
        self.headers = try entries(raw.headers, "headers")
    }
}

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
    var fields: [Pair]?
    var headers: [Pair]?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case url, method, body, field, expect, message, retries, concurrency, timeout
        case connectTimeout = "connect_timeout"
        case idleTimeout = "idle_timeout"
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
    guard let unknown = container.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first else { return }
    let nearest = known.map { ($0, editDistance($0, unknown)) }.min { $0.1 < $1.1 }
    let hint = nearest.flatMap { $0.1 <= 2 ? "did you mean \($0.0)?" : nil } ?? "use one of \(known.joined(separator: ", "))"
    throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath + [AnyKey(stringValue: unknown) as any CodingKey], debugDescription: "unknown key (\(hint))"))
}

/// Levenshtein distance, for "did you mean".
private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
