import Foundation
import TOMLKit
import TerminalUI
import UploadEngine

/// A saved target with its fields and headers, read from
/// `$XDG_CONFIG_HOME/hoist/profiles.toml` (default `~/.config/hoist/profiles.toml`):
///
///     [verify]
///     url = "https://api.example.com/ocr"
///     method = "POST"              # POST, PUT or PATCH
///     body = "multipart"           # multipart, base64 JSON, raw file, urlencoded, JSON
///     expect = ["RETCODE=0000"]
///     message = "RETMSG"
///     retries = 3
///     concurrency = 4
///     [[verify.fields]]            # in order, as they are sent
///     name = "user_id"
///     value = "42"
///     [[verify.headers]]
///     name = "Authorization"
///     value = "Bearer …"
struct Profile: Decodable {
    struct Pair: Decodable {
        var name: String
        var value: String
    }

    var url: String?
    var method: String?
    var body: String?
    var expect: [String]?
    var message: String?
    var retries: Int?
    var concurrency: Int?
    var fields: [Pair]?
    var headers: [Pair]?

    static var path: String {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (home + "/.config")
        return config + "/hoist/profiles.toml"
    }

    static func load(_ name: String, from path: String = Profile.path) throws -> Profile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BadInput("no profiles file at \(path): create it to use --profile (see the README)")
        }
        let all: [String: Profile]
        do {
            all = try TOMLDecoder().decode([String: Profile].self, from: String(decoding: data, as: UTF8.self))
        } catch let error as TOMLParseError {
            throw BadInput("\(path):\(error.source.begin.line):\(error.source.begin.column): \(error.description)")
        } catch let error as DecodingError {
            throw BadInput("\(path): \(describe(error))")
        } catch {
            throw BadInput("\(path) is not a valid profiles file: \(error)")
        }
        guard let profile = all[name] else {
            throw BadInput("no profile \(String(reflecting: name)) in \(path); it has: \(all.keys.sorted().joined(separator: ", "))")
        }
        return profile
    }

    /// "verify.retries: expected a number" rather than DecodingError's dump.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(type == Int.self ? "a number" : type == String.self ? "a string" : "\(type)")"
        case .valueNotFound(_, let context), .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            // TOMLKit reports a value of the wrong type as a missing key of the wanted type.
            if context.codingPath.last?.stringValue == key.stringValue,
                let type = context.debugDescription.split(separator: "\"").dropFirst().first
            {
                return "\(path(context.codingPath)): expected \(type == "Int" ? "a number" : type == "String" ? "a string" : String(type))"
            }
            return "\(path(context.codingPath + [key])): missing"
        @unknown default: return "\(error)"
        }
    }

    /// Applies the profile over a target; bad values are refused by name.
    func apply(to target: inout Target, entries: inout [FormEntry]) throws {
        if let url { target.url = url }
        if let method {
            guard let m = UploadRequest.Method(rawValue: method.uppercased()) else { throw BadInput("profile method \(String(reflecting: method)): use POST, PUT or PATCH") }
            target.method = m
        }
        if let body {
            guard let kind = Target.BodyKind.allCases.first(where: { $0.rawValue.lowercased() == body.lowercased() }) else {
                throw BadInput("profile body \(String(reflecting: body)): use one of \(Target.BodyKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            target.bodyKind = kind
        }
        if let expect {
            target.expectations = try expect.map {
                guard let e = SuccessRule.Expectation(parsing: $0) else { throw BadInput("profile expect \(String(reflecting: $0)): expected key.path=value") }
                return e
            }
        }
        if let message { target.messagePath = message }
        if let retries { target.retries = retries }
        entries += (fields ?? []).map { FormEntry(kind: .field, name: $0.name, value: $0.value) }
        entries += (headers ?? []).map { FormEntry(kind: .header, name: $0.name, value: $0.value) }
    }
}
