import FoundationEssentials
import TerminalUI
import UploadEngine
import UploadPlan

/// The UI's side of the profiles file: the picker's list, and "save as
/// profile", which adds a table at the end of the file and never rewrites
/// one that is there. Comments and layout of the rest stay byte for byte.
extension Profile {
    /// The tables for the picker, values as written (no `${VAR}` expanded).
    static func summaries(from path: String = Profile.path) throws -> [ProfileSummary] {
        guard let text = try readText(path) else { return [] }
        return try parse(text, path: path).sorted { $0.key < $1.key }.map { name, raw in
            ProfileSummary(
                name: name, method: raw.options["method"]?.first?.uppercased(), url: raw.url,
                fields: (raw.fields ?? []).map(\.name), headers: (raw.headers ?? []).map(\.name))
        }
    }

    /// Appends `[name]` with the target, fields and headers. Refused, with
    /// the file untouched, when it does not parse or already has `name`.
    /// Values loaded from `origin` and left unchanged are written as they
    /// were (`Bearer ${API_TOKEN}`), so a token from the environment is not
    /// copied into the file. The file is written atomically with mode 0600,
    /// its folder made 0700.
    static func save(
        name: String, target: Target, entries: [FormEntry], origin: Profile?, to path: String = Profile.path,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let folder = AtomicFile.folder(of: path)
        try XDG.makePrivateDirectories(folder)
        // Read, change, write under the lock: two saves at once both land.
        let lock = try FileLock(path + ".lock")
        defer { lock.release() }
        let existing = try readText(path) ?? ""
        let tables: [String: RawProfile]
        do {
            tables = try parse(existing, path: path)
        } catch {
            throw BadInput("profile not saved, \(path) left as it is: \(error)")
        }
        guard tables[name] == nil else {
            throw BadInput(
                "\(path) already has a profile \(String(reflecting: name)): choose another name (hoist never rewrites one)"
            )
        }
        var text = existing
        if !text.isEmpty { text += text.hasSuffix("\n") ? "\n" : "\n\n" }
        text += table(name: name, target: target, entries: entries, origin: origin)
        // What is written must load back as what the screen shows.
        do {
            let loaded = try Profile(name: name, raw: try parse(text, path: path)[name]!, environment: environment)
            guard loaded.settings.url == (target.url.isEmpty ? nil : target.url),
                loaded.settings.entries.count == entries.count
            else {
                throw BadInput("it would not load back as it is shown")
            }
        } catch {
            throw BadInput("profile not saved: \(error)")
        }
        try AtomicFile.write(Array(text.utf8), to: path)
    }

    /// The TOML table, in the layout docs/GUIDE.md documents.
    static func table(name: String, target: Target, entries: [FormEntry], origin: Profile?) -> String {
        var lines = ["[\(name)]"]
        func add(_ key: String, _ value: String) { lines.append("\(key) = \(value)") }
        if !target.url.isEmpty {
            add(
                "url",
                origin?.settings.url == target.url ? quote(origin?.rawURL ?? target.url) : quote(literal: target.url))
        }
        for option in TargetOption.all where option.scope != .s3 || target.isS3 {
            if option.scope == .objects, target.kind == nil { continue }
            guard let values = option.written(in: target) else { continue }
            let written = values.map { value in
                switch option.profileType {
                case .integer, .seconds, .boolean: return value
                case .text, .list: return quote(literal: value)
                case .size: return quote(value)
                }
            }
            add(option.key, option.profileType == .list ? "[" + written.joined(separator: ", ") + "]" : written[0])
        }
        for entry in entries {
            lines.append("[[\(name).\(entry.kind == .field ? "fields" : "headers")]]")
            add("name", quote(literal: entry.name))
            add("value", origin?.rawValue(of: entry).map { quote($0) } ?? quote(literal: entry.value))
            if entry.isSecret { add("secret", "true") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A TOML basic string of `text` as it stands (`${VAR}` stays a
    /// reference). TOML's escapes are JSON's, plus DEL.
    static func quote(_ text: String) -> String {
        "\"" + JSONValue.escaped(text, needsEscape: { $0.value < 0x20 || $0.value == 0x7F }) + "\""
    }

    /// A value typed in the UI: a `${` in it is meant literally.
    static func quote(literal text: String) -> String {
        quote(text.replacing("${", with: "$${"))
    }
}
