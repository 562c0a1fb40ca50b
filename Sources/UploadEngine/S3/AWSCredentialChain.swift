import FoundationEssentials

/// Finds the credentials and region an S3 target uses, as the AWS CLI
/// does: `--aws-profile` names a profile of the shared files; otherwise
/// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (and
/// `AWS_SESSION_TOKEN`) win; otherwise the profile `AWS_PROFILE` names, or
/// `default`, from `~/.aws/credentials` and `~/.aws/config`
/// (`AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE` move them).
public struct AWSCredentialChain: Sendable {
    public var environment: [String: String]
    /// Where `~` is; `HOME` by default.
    public var home: String

    public init(environment: [String: String], home: String? = nil) {
        self.environment = environment
        self.home = home ?? environment["HOME"] ?? homeDirectory()
    }

    public struct Found: Sendable, Hashable {
        public var credentials: AWSCredentials
        /// Where they came from, for messages: "environment" or "profile work in ~/.aws/credentials".
        public var source: String
    }

    public func credentials(profile explicit: String? = nil) throws(S3ConfigurationError) -> Found {
        if explicit == nil, let key = value("AWS_ACCESS_KEY_ID") {
            guard let secret = value("AWS_SECRET_ACCESS_KEY") else {
                throw S3ConfigurationError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
            }
            return Found(
                credentials: AWSCredentials(
                    accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN")),
                source: "environment")
        }
        let name = explicit ?? value("AWS_PROFILE") ?? "default"
        let settings = profile(name)
        guard let key = settings.values["aws_access_key_id"] else {
            if settings.found {
                throw S3ConfigurationError(
                    "the AWS profile \(name) has no aws_access_key_id (\(settings.files.joined(separator: ", ")))")
            }
            if explicit == nil && value("AWS_PROFILE") == nil {
                throw S3ConfigurationError(
                    "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add a profile to \(credentialsFile)"
                )
            }
            throw S3ConfigurationError("the AWS profile \(name) is in neither \(credentialsFile) nor \(configFile)")
        }
        guard let secret = settings.values["aws_secret_access_key"] else {
            throw S3ConfigurationError("the AWS profile \(name) has aws_access_key_id but no aws_secret_access_key")
        }
        return Found(
            credentials: AWSCredentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: settings.values["aws_session_token"]),
            source: "profile \(name)")
    }

    /// `--region`, `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's
    /// `region`, then us-east-1.
    public func region(_ explicit: String? = nil, profile: String? = nil) -> String {
        explicit ?? value("AWS_REGION") ?? value("AWS_DEFAULT_REGION")
            ?? self.profile(profile ?? value("AWS_PROFILE") ?? "default").values["region"] ?? S3Endpoint.defaultRegion
    }

    /// `AWS_ENDPOINT_URL_S3`, then `AWS_ENDPOINT_URL`.
    public var endpoint: String? { value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") }

    var credentialsFile: String { value("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials" }
    var configFile: String { value("AWS_CONFIG_FILE") ?? home + "/.aws/config" }

    private func value(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The profile's keys: the credentials file's `[name]` over the config
    /// file's `[profile name]` (`[default]` in both).
    func profile(_ name: String) -> (found: Bool, values: [String: String], files: [String]) {
        var values: [String: String] = [:]
        var files: [String] = []
        for (file, section) in [
            (configFile, name == "default" ? "default" : "profile " + name), (credentialsFile, name),
        ] {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8),
                let found = Self.ini(text)[section]
            else { continue }
            files.append(file)
            values.merge(found) { _, new in new }
        }
        return (!files.isEmpty, values, files)
    }

    /// Sections of an INI file as the AWS CLI reads them: `key = value`
    /// lines, `#` and `;` comments, indented lines (nested settings) skipped.
    static func ini(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            guard let first = raw.first, first != " ", first != "\t" else { continue }
            let line = raw.trimmingCharacters(in: " \t")
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingCharacters(in: " \t")
                current = name.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                sections[current!, default: [:]] = sections[current!] ?? [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: " \t").lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: " \t")
            sections[current]![key] = value
        }
        return sections
    }
}
