import AsyncHTTPClient

/// Proxy settings from the environment, as curl reads them: `http_proxy`,
/// `https_proxy` (or upper case), and `no_proxy` host suffixes.
struct ProxySettings: Sendable, Hashable {
    struct Server: Sendable, Hashable {
        var host: String
        var port: Int
    }

    var http: Server?
    var https: Server?
    var noProxy: [String]

    static func fromEnvironment(_ environment: [String: String]) -> ProxySettings {
        func value(_ name: String) -> String? {
            let found = environment[name] ?? environment[name.uppercased()]
            return found?.isEmpty == false ? found : nil
        }
        return ProxySettings(
            http: value("http_proxy").flatMap(parse),
            https: value("https_proxy").flatMap(parse),
            noProxy: (value("no_proxy") ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: " ").lowercased()
            }.filter { !$0.isEmpty }
        )
    }

    /// The proxy for a URL's scheme and host, or `nil` to connect directly.
    func server(scheme: String, host: String) -> Server? {
        let host = host.lowercased()
        for entry in noProxy {
            if entry == "*" { return nil }
            let suffix = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if host == suffix || host.hasSuffix("." + suffix) { return nil }
        }
        return scheme == "https" ? https : http
    }

    private static func parse(_ text: String) -> Server? {
        var rest = Substring(text)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        guard !rest.isEmpty else { return nil }
        if let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]) {
            return Server(host: String(rest[..<colon]), port: port)
        }
        return Server(host: String(rest), port: 1080)
    }
}
