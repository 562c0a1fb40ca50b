import FormData
import FoundationEssentials
import Glibc
import UploadEngine
import UploadPlan

/// The uploads `hoist send` will make, built and checked from the arguments
/// before anything is sent. Every problem is a `BadInput` naming the argument.
struct SendPlan {
    var requests: [UploadRequest]
    /// For each request, the index of the request it must wait for, if any.
    var after: [Int?]
    var concurrency: Int
    /// Bytes per second over every upload; nil for no limit.
    var limitRate: Int64?
    /// Against other runs' tasks once they meet in a journal (`hoist resume`, the UI's `R`).
    var priority: TaskPriority = .normal
    /// Fields whose values are never printed: `--secret` and the profile's `secret = true`.
    var secretFields: Set<String>
    /// Headers marked `secret = true` in the profile (Authorization, Cookie... are masked anyway).
    var secretHeaders: Set<String>

    init(
        requests: [UploadRequest], after: [Int?]? = nil, concurrency: Int = 4, limitRate: Int64? = nil,
        secretFields: Set<String> = [], secretHeaders: Set<String> = []
    ) {
        self.requests = requests
        self.after = after ?? Array(repeating: nil, count: requests.count)
        self.concurrency = concurrency
        self.limitRate = limitRate
        self.secretFields = secretFields
        self.secretHeaders = secretHeaders
    }

    /// The command line over the profile, when there is one: an option given
    /// on the command line wins over the profile's key (`TargetSettings.over`),
    /// and the one request-building path, `Target.requests`, makes the requests.
    init(command: SendCommand, profile: Profile? = nil) throws {
        let items = try command.formArguments.map { try FormItem.parse($0.value, from: $0.option) }
        let options = command.request
        // The target options (`TargetOption.all`), the URL and -H; then the body kind they allow.
        var flags = try command.target.settings()
        flags.url = command.url
        flags.entries = try options.headerEntries()
        var settings = flags.over(profile?.settings ?? TargetSettings())
        let tus = settings.target.transfer == .tus
        // A tus upload sends each file alone: -F text is its metadata, not a body of its own.
        let kinds = tus ? [] : Self.bodyOptions(command, hasForm: !items.isEmpty)
        guard kinds.count <= 1 else {
            throw BadInput(
                "choose one kind of body: \(kinds.map(\.option).joined(separator: " and ")) cannot be combined")
        }
        if let kind = kinds.first?.kind { try settings.set("body", kind.rawValue) }
        if !settings.has("method"), !command.uploadFiles.isEmpty { try settings.set("method", "PUT") }
        guard settings.url != nil else {
            if let profile {
                throw BadInput("no URL: give one, or set url in profile \(String(reflecting: profile.name))")
            }
            throw BadInput("no URL: give the URL to send to (or a --profile that has one)")
        }
        let target = settings.target
        // A part named on the command line replaces the profile's field of that name.
        let named = Set(items.map(\.name))
        var entries = settings.entries.filter { $0.kind == .header || !named.contains($0.name) }
        if let credentials = try options.netrcEntry(for: target.url, over: entries) { entries.append(credentials) }

        let folders = FolderFiles.Options(hidden: command.hidden, followSymlinks: command.followSymlinks)
        let choose = { (item: FormItem) throws -> Payload.Item in
            if case .part(let part) = item, case .file(let path) = part.content,
                let hint = Self.folderGiven(path, as: { "--each " + shellQuoted("\(part.name)=@" + $0) })
            {
                throw hint
            }
            return try item.payloadItem(folders: folders, flat: command.flat)
        }
        var payload = Payload()
        let uploads = try command.uploadFiles.map { pattern -> Payload.Item in
            let matches = try Glob.files(matching: pattern, folders: folders)
            guard !matches.isEmpty else {
                // Not a pattern, or one that matched nothing: the file checks name what is wrong.
                guard pattern.contains(where: { "*?[".contains($0) }) else {
                    if let hint = Self.folderGiven(pattern, as: { "-T " + shellQuoted($0) }) { throw hint }
                    return .files([FileChoice(path: pattern, field: target.fileField)])
                }
                throw BadInput("-T \(pattern): no file matches")
            }
            return .files(matches.map { $0.choice(field: target.fileField, flat: command.flat) })
        }
        if tus {
            let others = [
                command.jsonBody.map { _ in "--json" }, command.base64JSON.map { _ in "--base64-json" },
                command.data.isEmpty && command.dataURLEncode.isEmpty ? nil : "-d",
            ].compactMap { $0 }
            guard others.isEmpty else {
                throw BadInput(
                    "--tus sends files (-T, --each); \(others.joined(separator: " and ")) cannot be used with it")
            }
            payload.items = try items.map(choose) + uploads
        } else if let document = command.jsonBody {
            payload.document = try Self.jsonDocument(document)
        } else if !uploads.isEmpty {
            payload.items = uploads
        } else if let spec = command.base64JSON {
            payload.items = try items.map(choose) + [.files([try Self.base64JSONFile(spec)])]
        } else if !command.data.isEmpty || !command.dataURLEncode.isEmpty {
            payload.encodedData = try URLEncodedData.pieces(raw: command.data, encoded: command.dataURLEncode)
        } else {
            payload.items = try items.map(choose)
        }
        do {
            requests = try target.requests(entries: entries, payload: payload)
        } catch {
            throw BadInput(Self.hint(for: error, option: kinds.first?.option, profile: profile))
        }
        after = requests.indices.map { command.afterSuccess && $0 > 0 ? $0 - 1 : nil }
        concurrency = target.concurrency
        limitRate = target.bandwidthLimit
        priority = command.priority.engine
        secretFields = Set(command.secretFields).union(entries.filter { $0.kind == .field && $0.isSecret }.map(\.name))
        secretHeaders = Set(entries.filter { $0.kind == .header && $0.isSecret }.map(\.name))
    }

    /// The body options given, each with the body kind it asks for.
    static func bodyOptions(_ command: SendCommand, hasForm: Bool) -> [(option: String, kind: Target.BodyKind)] {
        [
            hasForm && command.base64JSON == nil ? ("-F", .multipart) : nil,
            command.data.isEmpty && command.dataURLEncode.isEmpty ? nil : ("-d/--data-urlencode", .urlencoded),
            command.jsonBody == nil ? nil : ("--json", .json),
            command.uploadFiles.isEmpty ? nil : ("-T", .raw),
            command.base64JSON == nil ? nil : ("--base64-json", .base64JSON),
        ].compactMap { $0 }
    }

    /// What is wrong, in the command line's terms.
    static func hint(for error: PlanError, option: String?, profile: Profile?) -> String {
        switch error {
        case .noURL: return "no URL: give the URL to send to (or a --profile that has one)"
        case .badValue(let value): return "url: \(value)"
        case .nothingToSend, .needsFields, .needsFile:
            return "nothing to send: give -F parts, --each, -d, --json, -T or --base64-json"
        case .cannotSendFields(_, let names):
            let from = profile.map { "profile \(String(reflecting: $0.name)) has fields" } ?? "there are fields"
            return
                "\(from) (\(names.joined(separator: ", "))), which \(option ?? "this body") cannot send: use -F, -d or --base64-json"
        case .onlyTextParts: return "with --base64-json, -F may add text fields only (name=value)"
        case .tusNeedsFile: return "nothing to send: with --tus, give the files with -T FILE or --each name=@GLOB"
        case .tusTextOnly:
            return "with --tus, each file (-T, --each) is one upload; -F may add metadata only (name=value)"
        case .tusMetadataKey(let problem): return "-F: \(problem)"
        case .s3FilesOnly, .s3, .kind: return error.description
        }
    }

    // MARK: - Form parts

    /// One `-F`, `--form-string` or `--each` argument, in command-line order.
    enum FormItem {
        case part(Part)
        case each(name: String, pattern: String)

        var name: String {
            switch self {
            case .part(let part): return part.name
            case .each(let name, _): return name
            }
        }

        /// The part, or the files the glob matches.
        func payloadItem(folders: FolderFiles.Options, flat: Bool) throws -> Payload.Item {
            switch self {
            case .part(let part): return .part(part)
            case .each(let name, let pattern):
                let matches = try Glob.files(matching: pattern, folders: folders)
                guard !matches.isEmpty else {
                    throw SendPlan.folderGiven(pattern, as: { "--each " + shellQuoted("\(name)=@" + $0) })
                        ?? BadInput("--each \(name)=@\(pattern): no file matches")
                }
                return .files(matches.map { $0.choice(field: name, flat: flat) })
            }
        }

        /// `value` as the option `option` (a long name) reads it.
        static func parse(_ value: String, from option: String) throws -> FormItem {
            do {
                switch option {
                case "--form-string":
                    return .part(try CurlFormArgument.parseLiteral(value).part())
                case "--each":
                    guard let equals = value.firstIndex(of: "="), value[value.index(after: equals)...].hasPrefix("@")
                    else {
                        throw BadInput("bad --each argument \(String(reflecting: value)): expected name=@GLOB")
                    }
                    return .each(
                        name: String(value[..<equals]), pattern: String(value[value.index(equals, offsetBy: 2)...]))
                default:
                    return try curl(value)
                }
            } catch let error as CurlFormSyntaxError {
                throw BadInput(error.description)
            }
        }

        /// A -F argument, read as curl reads it.
        private static func curl(_ argument: String) throws -> FormItem {
            let argument = try CurlFormArgument.parse(argument)
            // curl's own warnings (unknown modifier, trailing data after a quote...), as curl prints them.
            for warning in argument.warnings { printError("hoist: warning: \(warning)") }
            return .part(argument.part())
        }
    }

    /// `--base64-json field=@path`.
    /// A folder given where a file goes (issue 37 #9): the option that
    /// sends the files in it, written by `option` from the folder's glob.
    static func folderGiven(_ path: String, as option: (String) -> String) -> BadInput? {
        guard FolderFiles.type(of: path, follow: true) == Int32(DT_DIR) else { return nil }
        let glob = (path.hasSuffix("/") ? String(path.dropLast()) : path) + "/**"
        return BadInput("\(path) is a folder: to send the files in it and its subfolders, give \(option(glob))")
    }

    static func base64JSONFile(_ spec: String) throws -> FileChoice {
        guard let equals = spec.firstIndex(of: "="), spec[spec.index(after: equals)...].hasPrefix("@") else {
            throw BadInput("bad --base64-json argument \(String(reflecting: spec)): expected field=@path")
        }
        return FileChoice(path: String(spec[spec.index(equals, offsetBy: 2)...]), field: String(spec[..<equals]))
    }

    static func jsonDocument(_ argument: String) throws -> [UInt8] {
        var bytes = Array(argument.utf8)
        var source = "--json"
        if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            source = "--json @\(path)"
            guard let data = FileManager.default.contents(atPath: path) else {
                var isDirectory = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                    throw BadInput(isDirectory ? "\(source): is a directory" : "\(source): permission denied")
                }
                throw BadInput("\(source): file not found")
            }
            bytes = Array(data)
        }
        do {
            _ = try JSONParser.parse(bytes)
        } catch {
            throw BadInput("\(source): not valid JSON: \(error)")
        }
        return bytes
    }
}

/// curl's `-d` and `--data-urlencode`, joined with `&`.
enum URLEncodedData {
    /// The pieces, each urlencoded already, in curl's order: `-d`, then `--data-urlencode`.
    static func pieces(raw: [String], encoded: [String]) throws -> [String] {
        var pieces: [String] = []
        for item in raw {
            if item.hasPrefix("@") {
                pieces.append(try read(String(item.dropFirst()), option: "-d").filter { $0 != "\r" && $0 != "\n" })
            } else {
                pieces.append(item)
            }
        }
        for item in encoded {
            // curl: "content", "=content", "name=content", "@file", "name@file".
            if let equals = item.firstIndex(of: "=") {
                let name = String(item[..<equals])
                let content = URLEncodedForm.encode(String(item[item.index(after: equals)...]))
                pieces.append(name.isEmpty ? content : name + "=" + content)
            } else if let at = item.firstIndex(of: "@") {
                let name = String(item[..<at])
                let content = URLEncodedForm.encode(
                    try read(String(item[item.index(after: at)...]), option: "--data-urlencode"))
                pieces.append(name.isEmpty ? content : name + "=" + content)
            } else {
                pieces.append(URLEncodedForm.encode(item))
            }
        }
        return pieces
    }

    private static func read(_ path: String, option: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BadInput("\(option) @\(path): cannot read the file")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
