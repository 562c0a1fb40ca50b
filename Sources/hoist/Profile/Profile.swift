import FoundationEssentials
import UploadEngine
import UploadPlan

/// A saved target with its fields and headers, read from
/// `$XDG_CONFIG_HOME/hoist/profiles.toml` (default `~/.config/hoist/profiles.toml`)
/// and used by `hoist tui --profile NAME`, `hoist send --profile NAME` and
/// the UI's `O`. The README documents the keys. The file is only ever read
/// here (`ProfileWriter.swift` appends to it). Every string value is
/// expanded (`${VAR}`) and every value checked by the same validators as the
/// command line and the UI when the profile is loaded, so a mistake is
/// reported by name before anything is shown or sent.
struct Profile: Sendable {
    /// A text field or a header as the file gives it.
    struct Entry: Sendable, Hashable {
        var name: String
        var value: String
        /// Marked `secret = true` in the file.
        var secret: Bool
        /// The value as written, `${VAR}`s and all, so "save as profile" keeps them.
        var rawValue: String
    }

    let name: String
    /// The target settings, expanded and checked; `entries` are the fields, then the headers.
    var settings = TargetSettings()
    /// The URL as written.
    var rawURL: String?
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
            throw BadInput("no profiles file at \(path): create it to use --profile (see docs/GUIDE.md#profiles)")
        }
        let all = try parse(text, path: path)
        guard let raw = all[name] else {
            let names = all.keys.sorted().joined(separator: ", ")
            throw BadInput(
                "no profile \(String(reflecting: name)) in \(path); \(names.isEmpty ? "it has none" : "it has: \(names)")"
            )
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
            var isDirectory = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                let why = isDirectory ? "it is a directory" : "permission denied"
                throw BadInput("cannot read the profiles file \(path): \(why)")
            }
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The value as written in the file for `entry`, when it came from here unchanged.
    func rawValue(of entry: FormEntry) -> String? {
        let candidates = entry.kind == .field ? fields : headers
        return candidates.first { $0.name == entry.name && $0.value == entry.value }?.rawValue
    }

    /// The fields and headers as entries: `secret = true` masks; otherwise
    /// the name decides (password, token, Authorization...).
    static func entries(fields: [Entry], headers: [Entry]) -> [FormEntry] {
        fields.map { FormEntry(kind: .field, name: $0.name, value: $0.value, isSecret: $0.secret ? true : nil) }
            + headers.map { FormEntry(kind: .header, name: $0.name, value: $0.value, isSecret: $0.secret ? true : nil) }
    }
}

/// A value in a profile that cannot be used, named by its key.
struct ProfileValueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
