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
                name: name, method: raw.method?.uppercased(), url: raw.url,
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
        add("method", quote(target.method.rawValue))
        add("body", quote(target.bodyKind.rawValue))
        add("field", quote(literal: target.fileField))
        if !target.expectations.isEmpty {
            add("expect", "[" + target.expectations.map { quote(literal: $0.text) }.joined(separator: ", ") + "]")
        }
        if let message = target.messagePath { add("message", quote(literal: message)) }
        add("retries", String(target.retries))
        add("concurrency", String(target.concurrency))
        if target.limitRate > 0 { add("limit_rate", quote(TargetValue.text(rate: target.limitRate))) }
        if target.transfer != .single { add("transfer", quote(target.transfer.rawValue)) }
        if case .fixed(let bytes) = target.chunkSize { add("chunk_size", String(bytes)) }
        if target.parallelParts != 1 { add("parallel_parts", String(target.parallelParts)) }
        if target.isS3 {
            let s3 = target.s3
            if let endpoint = s3.endpoint { add("endpoint", quote(literal: endpoint)) }
            if let region = s3.region { add("region", quote(literal: region)) }
            if let profile = s3.awsProfile { add("aws_profile", quote(literal: profile)) }
            if let size = s3.partSize { add("part_size", String(size)) }
            if s3.partConcurrency != S3Settings.defaultPartConcurrency {
                add("part_concurrency", String(s3.partConcurrency))
            }
            if let storageClass = s3.storageClass { add("storage_class", quote(literal: storageClass)) }
            if let acl = s3.acl { add("acl", quote(literal: acl)) }
            if let checksum = s3.checksum { add("checksum", quote(checksum.rawValue)) }
        }
        if let images = target.images {
            if let quality = images.quality { add("image_quality", String(quality)) }
            if let dimension = images.maxDimension { add("image_max_dim", String(dimension)) }
            if let bytes = images.maxBytes { add("image_max_bytes", quote(TargetValue.text(size: bytes))) }
            if images.format != .keep { add("image_format", quote(images.format.rawValue)) }
            if images.keepsMetadata { add("image_keep_metadata", "true") }
        }
        let defaults = Timeouts()
        if let total = target.timeouts.total { add("timeout", TargetValue.text(seconds: total)) }
        if target.timeouts.connect != defaults.connect {
            add("connect_timeout", TargetValue.text(seconds: target.timeouts.connect))
        }
        if target.timeouts.idle != defaults.idle {
            add("idle_timeout", TargetValue.text(seconds: target.timeouts.idle))
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
