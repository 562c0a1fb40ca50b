import ArgumentParser
import FormData
import FoundationEssentials
import UploadEngine
import UploadPlan
import WireRules

/// Where uploads go and how, as `hoist send` and `hoist tui` take it: the
/// profile, and the target options of `TargetOption.all`, which
/// `ArgumentRewriter` hands over in `--target-settings` and which are
/// checked here by the same option a profile's key and the UI's `t` dialog
/// use, so all three refuse a bad value in the same words.
struct TargetOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Take the target, fields and headers from this profile in ~/.config/hoist/profiles.toml; "
                + "options given here win.",
            valueName: "name"))
    var profile: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify the server's TLS certificate.")
    var insecure = false

    /// The target options in command-line order, each after its flag.
    @Option(name: .customLong("target-settings"), help: .hidden)
    var targetSettings: String?

    /// What the target options set; a list option (`--expect`) keeps every value, others the last.
    func settings() throws -> TargetSettings {
        var given: [(option: TargetOption, values: [String])] = []
        for (flag, value) in ArgumentRewriter.namedValues(targetSettings) {
            guard let option = TargetOption.flagged(flag) else { throw BadInput("\(flag): not a target option") }
            if let at = given.firstIndex(where: { $0.option.key == option.key }) {
                given[at].values += [value]
            } else {
                given.append((option, [value]))
            }
        }
        var settings = TargetSettings()
        for (option, values) in given {
            let flag = option.flag?.long ?? option.key
            settings.set(
                try checked(flag) { () throws(TargetValueError) in
                    try option.setting(option.profileType == .list ? values : [values[values.count - 1]])
                })
        }
        return settings
    }

    /// The profile named by `--profile`, loaded and checked.
    func loadProfile() throws -> Profile? {
        try profile.map { try Profile.load($0) }
    }

    /// The help of the target options, for `--help` after argument-parser's, in
    /// its layout: a section per scope.
    static var help: String {
        let sections: [(String, TargetOption.Scope)] = [
            ("TARGET OPTIONS (also profile keys: see docs/GUIDE.md)", .every), ("TUS", .tus),
            ("S3 (for s3://BUCKET/KEY or s3://BUCKET/PREFIX/ URLs)", .s3),
            ("OBJECT STORES (S3, and GCS: gs://BUCKET/NAME or gs://BUCKET/PREFIX/)", .objects), ("IMAGES", .images),
        ]
        return sections.map { title, scope in
            let lines = TargetOption.all.filter { $0.scope == scope && $0.flag != nil }.map { option in
                let flag = option.flag!
                let spelled =
                    (flag.short.map { "-\($0), " } ?? "") + flag.long + (flag.valueName.map { " <\($0)>" } ?? "")
                return HelpText.entry(spelled, option.help)
            }
            return "\(title):\n" + lines.joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}

/// argument-parser's help layout: the option in a column of 26, its help wrapped at 80.
enum HelpText {
    static func entry(_ option: String, _ help: String) -> String {
        let indent = String(repeating: " ", count: 28)
        var lines: [String] = []
        var line = ""
        for word in help.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > 80 - indent.count {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        let head = "  " + option
        let first =
            head.count < 27
            ? head + String(repeating: " ", count: 28 - head.count) + lines[0] : head + "\n" + indent + lines[0]
        return ([first] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }
}

/// The request's method, headers and policies, as `hoist send` takes them.
struct RequestOptions: ParsableArguments {
    @Option(
        name: [.customShort("H"), .customLong("header")],
        help: ArgumentHelp(
            "An extra request header, or @file: one header per line (blank lines and # comments skipped).",
            valueName: "Name: value"))
    var header: [String] = []

    /// Every `-H` of `hoist send`, in order, as `ArgumentRewriter` hands them over.
    @Option(name: .customLong("header-list"), help: .hidden)
    var headerList: String?

    /// The `-H` arguments in command-line order.
    var headers: [String] { ArgumentRewriter.values(headerList) + header }

    @Option(
        name: .customLong("secret-header"),
        help: ArgumentHelp(
            "A header whose value is never printed (Authorization, *-Token, *-Key... are masked anyway).",
            valueName: "name"))
    var secretHeaders: [String] = []

    @Option(name: [.customShort("A"), .customLong("user-agent")], help: "The User-Agent header.")
    var userAgent: String?

    @Option(
        name: [.customShort("u"), .customLong("user")],
        help: ArgumentHelp(
            "Basic authentication; the password is never printed. A user alone asks for the password on the terminal.",
            valueName: "user[:password]"))
    var user: String?

    @Option(
        name: .customLong("gcs-token"),
        help: ArgumentHelp(
            "An OAuth2 access token for gs:// targets (else GOOGLE_OAUTH_ACCESS_TOKEN), sent as Authorization: Bearer; never printed.",
            valueName: "token"))
    var gcsToken: String?

    @Flag(help: "Basic authentication from ~/.netrc for the URL's host (as curl): machine, login, password.")
    var netrc = false

    @Option(name: .customLong("netrc-file"), help: ArgumentHelp("As --netrc, from this file.", valueName: "file"))
    var netrcFile: String?

    /// -H (and the lines of -H @file), then -A and -u as the headers they stand for.
    func headerEntries() throws -> [FormEntry] {
        let marked = Set(secretHeaders)
        var entries = try headers.flatMap(Self.headerFields).map {
            FormEntry(
                kind: .header, name: $0.name, value: $0.value,
                isSecret: Secrets.isSecretHeader($0.name, marked: marked) ? true : nil)
        }
        if let userAgent {
            let header = try checked("-A") { () throws(TargetValueError) in
                try TargetValue.header(name: "User-Agent", value: userAgent)
            }
            entries.append(FormEntry(kind: .header, name: header.name, value: header.value))
        }
        if let gcsToken {
            entries.append(FormEntry(kind: .header, name: "Authorization", value: "Bearer " + gcsToken, isSecret: true))
        }
        if let user {
            let credentials = user.contains(":") ? user : user + ":" + (try PasswordPrompt.ask(for: user))
            entries.append(Self.basicAuthorization(credentials))
        }
        return entries
    }

    /// `Authorization: Basic …` for `user:password`, as -u and a netrc entry send it.
    static func basicAuthorization(_ credentials: String, isSecret: Bool? = nil) -> FormEntry {
        FormEntry(
            kind: .header, name: "Authorization",
            value: "Basic " + String(decoding: Base64.encode(Array(credentials.utf8)), as: UTF8.self),
            isSecret: isSecret)
    }

    /// The netrc's credentials for `url` as an Authorization header, when
    /// --netrc or --netrc-file is given and nothing else authenticates
    /// (-u, -H Authorization, a profile's header), as curl does.
    func netrcEntry(for url: String, over entries: [FormEntry]) throws -> FormEntry? {
        // An s3:// URL signs its own requests with the AWS keys.
        guard netrc || netrcFile != nil, !S3Location.isS3URL(url),
            !entries.contains(where: { $0.kind == .header && $0.name.lowercased() == "authorization" }),
            let parsed = URLComponents(string: url), let host = parsed.host
        else { return nil }
        let path = netrcFile ?? homeDirectory() + "/.netrc"
        guard let entry = try Netrc(path: path).entry(host: host, user: parsed.user), let login = entry.login else {
            return nil
        }
        return Self.basicAuthorization(login + ":" + (entry.password ?? ""), isSecret: true)
    }

    /// One -H argument's headers: the line itself, or each line of `@file`, as curl reads it.
    static func headerFields(_ argument: String) throws -> [HeaderField] {
        guard argument.hasPrefix("@") else {
            return [try checked("-H") { () throws(TargetValueError) in try TargetValue.headerLine(argument) }]
        }
        do {
            return try HeaderFile.read(String(argument.dropFirst()))
        } catch {
            throw BadInput("-H \(argument): \(error)")
        }
    }
}

/// A `TargetValueError` named by the option it came from.
func checked<Value>(_ option: String, _ validate: () throws(TargetValueError) -> Value) throws -> Value {
    do { return try validate() } catch { throw BadInput("\(option): \(error.description)") }
}
