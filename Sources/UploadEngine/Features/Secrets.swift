/// What Hoist never prints in clear: credentials in headers, URLs and
/// fields marked secret.
public enum Secrets {
    public static let mask = "••••••"

    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token"]
    static let secretWords = ["password", "passwd", "secret", "token", "apikey", "api_key", "api-key"]

    /// A header is secret when its name says so, or when the user marked it
    /// (`marked` holds names in any case: header names are case-insensitive).
    public static func isSecretHeader(_ name: String, marked: Set<String> = []) -> Bool {
        secretHeaders.contains(name.lowercased()) || marked.contains { $0.lowercased() == name.lowercased() }
    }

    /// A field is secret when the user marked it, or when its name says so.
    public static func isSecretField(_ name: String, marked: Set<String> = []) -> Bool {
        if marked.contains(name) { return true }
        let lower = name.lowercased()
        return secretWords.contains { lower.contains($0) }
    }

    /// A header line for display: the value masked when the header is secret.
    /// `Authorization: Basic …` keeps its scheme so the reader knows what was sent.
    public static func displayValue(header name: String, value: String, marked: Set<String> = []) -> String {
        guard isSecretHeader(name, marked: marked) else { return value }
        if let space = value.firstIndex(of: " "), name.lowercased().hasSuffix("authorization") {
            return String(value[..<space]) + " " + mask
        }
        return mask
    }

    /// The URL with any password in its user info masked.
    public static func displayURL(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userInfo = authority[..<at]
        let user = userInfo.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let masked = userInfo.contains(":") ? user + ":" + mask : String(userInfo)
        return String(url[..<schemeEnd.upperBound]) + masked + String(rest[at...])
    }
}
