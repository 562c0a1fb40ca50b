import FormData
import Foundation
import UploadEngine

/// The uploads `hoist send` will make, built and checked from the arguments
/// before anything is sent. Every problem is a `BadInput` naming the argument.
struct SendPlan {
    var requests: [UploadRequest]
    /// For each request, the index of the request it must wait for, if any.
    var after: [Int?]
    var concurrency: Int
    /// Fields whose values are never printed: `--secret` and the profile's `secret = true`.
    var secretFields: Set<String>
    /// Headers marked `secret = true` in the profile (Authorization, Cookie... are masked anyway).
    var secretHeaders: Set<String>

    init(requests: [UploadRequest], after: [Int?]? = nil, concurrency: Int = 4, secretFields: Set<String> = [], secretHeaders: Set<String> = []) {
        self.requests = requests
        self.after = after ?? Array(repeating: nil, count: requests.count)
        self.concurrency = concurrency
        self.secretFields = secretFields
        self.secretHeaders = secretHeaders
    }

    /// The command line over the profile, when there is one: an option given
    /// on the command line wins over the profile's key.
    init(command: SendCommand, profile: Profile? = nil) throws {
        let concurrency = command.concurrency ?? profile?.concurrency ?? 4
        guard concurrency >= 1 else { throw BadInput("--concurrency must be at least 1") }
        if let retries = command.retries, retries < 0 { throw BadInput("--retries must be 0 or more") }
        guard let url = command.url ?? profile?.url else {
            if let profile { throw BadInput("no URL: give one, or set url in profile \(String(reflecting: profile.name))") }
            throw BadInput("no URL: give the URL to send to (or a --profile that has one)")
        }
        _ = try Self.validURL(url)

        let items = try command.form.map(FormItem.parse)
        let hasForm = !items.isEmpty
        // The profile's fields go first; a part of the same name on the command line replaces one.
        let named = Set(items.map(\.name))
        let profileFields = (profile?.fields ?? []).filter { !named.contains($0.name) }
        let leading = profileFields.map { FormItem.part(.text($0.name, $0.value)) }
        func refuseProfileFields(_ option: String) throws {
            guard let profile, !profileFields.isEmpty else { return }
            throw BadInput("profile \(String(reflecting: profile.name)) has fields (\(profileFields.map(\.name).joined(separator: ", "))), which \(option) cannot send: use -F, -d or --base64-json")
        }
        let bodyKinds = [
            hasForm && command.base64JSON == nil ? "-F" : nil,
            command.data.isEmpty && command.dataURLEncode.isEmpty ? nil : "-d/--data-urlencode",
            command.jsonBody == nil ? nil : "--json",
            command.uploadFile == nil ? nil : "-T",
            command.base64JSON == nil ? nil : "--base64-json",
        ].compactMap { $0 }
        guard bodyKinds.count <= 1 else {
            throw BadInput("choose one kind of body: \(bodyKinds.joined(separator: " and ")) cannot be combined")
        }

        let method = try Self.method(command.method, default: profile?.method ?? (command.uploadFile == nil ? .post : .put))
        let headers = try Self.headers(command, profile: profile)
        let policies = try Self.policies(command, profile: profile)

        var bodies: [(UploadRequest.Body, String?)] = []
        if let doc = command.jsonBody {
            try refuseProfileFields("--json")
            bodies = [(.json(try Self.jsonDocument(doc)), nil)]
        } else if let path = command.uploadFile {
            try refuseProfileFields("-T")
            bodies = [(.rawFile(path: path), baseName(of: path))]
        } else if let spec = command.base64JSON {
            bodies = [(.base64JSON(try Self.base64JSON(spec, items: leading + items)), nil)]
        } else if !command.data.isEmpty || !command.dataURLEncode.isEmpty {
            let body = try URLEncodedData.build(
                leading: profileFields.map { FormField($0.name, $0.value) }, raw: command.data, encoded: command.dataURLEncode)
            bodies = [(.bytes(body, contentType: "application/x-www-form-urlencoded"), nil)]
        } else if hasForm || !leading.isEmpty {
            bodies = try Self.multipartBodies(leading + items)
        } else {
            throw BadInput("nothing to send: give -F parts, --each, -d, --json, -T or --base64-json")
        }

        requests = bodies.map { body, label in
            UploadRequest(
                url: url, method: method, headers: headers, body: body,
                timeouts: policies.timeouts, retry: policies.retry, success: policies.success,
                label: label ?? Self.label(for: body, url: url))
        }
        after = requests.indices.map { command.afterSuccess && $0 > 0 ? $0 - 1 : nil }
        self.concurrency = concurrency
        secretFields = Set(command.secretFields).union(profile?.secretFieldNames ?? [])
        secretHeaders = profile?.secretHeaderNames ?? []
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

        static func parse(_ tagged: String) throws -> FormItem {
            do {
                if tagged.hasPrefix(ArgumentRewriter.literalTag) {
                    return .part(try CurlFormArgument.parseLiteral(String(tagged.dropFirst(ArgumentRewriter.literalTag.count))).part())
                }
                if tagged.hasPrefix(ArgumentRewriter.eachTag) {
                    let spec = String(tagged.dropFirst(ArgumentRewriter.eachTag.count))
                    guard let equals = spec.firstIndex(of: "="), spec[spec.index(after: equals)...].hasPrefix("@") else {
                        throw BadInput("bad --each argument \(String(reflecting: spec)): expected name=@GLOB")
                    }
                    return .each(name: String(spec[..<equals]), pattern: String(spec[spec.index(equals, offsetBy: 2)...]))
                }
                let argument = try CurlFormArgument.parse(tagged)
                // curl's own warnings (unknown modifier, trailing data after a quote...), as curl prints them.
                for warning in argument.warnings { printError("hoist: warning: \(warning)") }
                return .part(argument.part())
            } catch let error as CurlFormSyntaxError {
                throw BadInput(error.description)
            }
        }
    }

    /// One multipart body, or one per file matched by `--each`.
    static func multipartBodies(_ items: [FormItem]) throws -> [(UploadRequest.Body, String?)] {
        var fixed: [Part?] = []
        var eachFiles: [(slot: Int, name: String, path: String)] = []
        for item in items {
            switch item {
            case .part(let part):
                fixed.append(part)
            case .each(let name, let pattern):
                let matches = try Glob.files(matching: pattern)
                guard !matches.isEmpty else { throw BadInput("--each \(name)=@\(pattern): no file matches") }
                eachFiles += matches.map { (fixed.count, name, $0) }
                fixed.append(nil)
            }
        }
        guard !eachFiles.isEmpty else {
            return [(.multipart(MultipartForm(parts: fixed.compactMap { $0 })), nil)]
        }
        return eachFiles.map { file in
            var parts: [Part] = []
            for (slot, part) in fixed.enumerated() {
                if let part { parts.append(part) } else if slot == file.slot { parts.append(.file(file.name, path: file.path)) }
            }
            return (.multipart(MultipartForm(parts: parts)), baseName(of: file.path))
        }
    }

    static func base64JSON(_ spec: String, items: [FormItem]) throws -> Base64JSONBody {
        guard let equals = spec.firstIndex(of: "="), spec[spec.index(after: equals)...].hasPrefix("@") else {
            throw BadInput("bad --base64-json argument \(String(reflecting: spec)): expected field=@path")
        }
        var fields: [FormField] = []
        for item in items {
            guard case .part(let part) = item, case .bytes(let bytes) = part.content, part.filename == nil else {
                throw BadInput("with --base64-json, -F may add text fields only (name=value)")
            }
            fields.append(FormField(part.name, String(decoding: bytes, as: UTF8.self)))
        }
        return Base64JSONBody(fileField: String(spec[..<equals]), path: String(spec[spec.index(equals, offsetBy: 2)...]), fields: fields)
    }

    // MARK: - Request parts

    static func validURL(_ url: String) throws -> String {
        do {
            return try UploadEngine.validate(url: url)
        } catch {
            throw BadInput(error.description)
        }
    }

    static func method(_ text: String?, default fallback: UploadRequest.Method) throws -> UploadRequest.Method {
        guard let text else { return fallback }
        guard let method = UploadRequest.Method(rawValue: text.uppercased()) else {
            throw BadInput("-X \(text): use POST, PUT or PATCH")
        }
        return method
    }

    /// The profile's headers, then the command line's; a header named on the
    /// command line (also by -A or -u) replaces the profile's of that name.
    static func headers(_ command: SendCommand, profile: Profile? = nil) throws -> [HeaderField] {
        var headers: [HeaderField] = []
        for line in command.headers {
            guard let colon = line.firstIndex(of: ":") else {
                throw BadInput("bad -H argument \(String(reflecting: line)): expected \"Name: value\"")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(where: { $0.isWhitespace }) else {
                throw BadInput("bad -H argument \(String(reflecting: line)): the header name is empty or has spaces")
            }
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                throw BadInput("bad -H argument for \(name): a header value cannot contain CR or LF")
            }
            headers.append(HeaderField(name, value))
        }
        if let agent = command.userAgent { headers.append(HeaderField("User-Agent", agent)) }
        if let user = command.user {
            guard user.contains(":") else { throw BadInput("-u \(user.split(separator: ":").first ?? ""): give user:password") }
            headers.append(HeaderField("Authorization", "Basic " + Data(user.utf8).base64EncodedString()))
        }
        let given = Set(headers.map { $0.name.lowercased() })
        headers = (profile?.headers ?? []).filter { !given.contains($0.name.lowercased()) }.map { HeaderField($0.name, $0.value) } + headers
        if command.jsonBody != nil, !headers.contains(where: { $0.name.lowercased() == "accept" }) {
            headers.append(HeaderField("Accept", "application/json"))
        }
        return headers
    }

    static func policies(_ command: SendCommand, profile: Profile? = nil) throws -> (timeouts: Timeouts, retry: RetryPolicy, success: SuccessRule) {
        func duration(_ seconds: Double?, _ option: String) throws -> Duration? {
            guard let seconds else { return nil }
            guard seconds > 0, seconds.isFinite, seconds < 1e9 else { throw BadInput("\(option) must be a positive number of seconds") }
            return .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
        let timeouts = Timeouts(
            connect: try duration(command.connectTimeout, "--connect-timeout") ?? profile?.connectTimeout ?? .seconds(10),
            idle: try duration(command.idleTimeout, "--idle-timeout") ?? profile?.idleTimeout ?? .seconds(30),
            total: try duration(command.timeout, "--timeout") ?? profile?.timeout
        )
        var expectations: [SuccessRule.Expectation] = []
        for item in command.expect {
            guard let expectation = SuccessRule.Expectation(parsing: item) else {
                throw BadInput("bad --expect argument \(String(reflecting: item)): expected key.path=value")
            }
            expectations.append(expectation)
        }
        if command.expect.isEmpty { expectations = profile?.expectations ?? [] }
        return (
            timeouts, RetryPolicy(maxRetries: command.retries ?? profile?.retries ?? 3),
            SuccessRule(expectations: expectations, messagePath: command.messagePath ?? profile?.messagePath)
        )
    }

    static func jsonDocument(_ argument: String) throws -> [UInt8] {
        var bytes = Array(argument.utf8)
        var source = "--json"
        if argument.hasPrefix("@") {
            let path = String(argument.dropFirst())
            source = "--json @\(path)"
            guard let data = FileManager.default.contents(atPath: path) else {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                    throw BadInput(isDirectory.boolValue ? "\(source): is a directory" : "\(source): permission denied")
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

    static func label(for body: UploadRequest.Body, url: String) -> String {
        if case .multipart(let form) = body, let file = form.parts.first(where: { $0.filename != nil })?.filename {
            return file
        }
        if case .base64JSON(let json) = body { return baseName(of: json.path) }
        return Secrets.displayURL(url)
    }
}

/// Files matching a shell glob, sorted; directories are skipped.
enum Glob {
    static func files(matching pattern: String) throws -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        // GLOB_MARK ends directories (and links to them) with a slash, from
        // the directory entry's type where it can: no stat per match.
        let status = glob(pattern, GLOB_MARK, nil, &result)
        if status == GLOB_NOMATCH { return [] }
        guard status == 0 else { throw BadInput("cannot expand \(String(reflecting: pattern))") }
        var paths: [String] = []
        paths.reserveCapacity(Int(result.gl_pathc))
        for index in 0..<Int(result.gl_pathc) {
            guard let pointer = result.gl_pathv[index] else { continue }
            let path = String(cString: pointer)
            if path.utf8.last != UInt8(ascii: "/") { paths.append(path) }
        }
        return paths.sorted()
    }
}

/// curl's `-d` and `--data-urlencode`, joined with `&`.
enum URLEncodedData {
    static func build(leading: [FormField] = [], raw: [String], encoded: [String]) throws -> [UInt8] {
        var pieces = leading.map { URLEncodedForm.encode($0.name) + "=" + URLEncodedForm.encode($0.value) }
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
                let content = URLEncodedForm.encode(try read(String(item[item.index(after: at)...]), option: "--data-urlencode"))
                pieces.append(name.isEmpty ? content : name + "=" + content)
            } else {
                pieces.append(URLEncodedForm.encode(item))
            }
        }
        return Array(pieces.joined(separator: "&").utf8)
    }

    private static func read(_ path: String, option: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BadInput("\(option) @\(path): cannot read the file")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
