import HTTPTypes
import HummingbirdCore

/// Who may use the receiver, checked before a byte of the body is read: the
/// bearer token when one is set, and no page of another site. Browsers send
/// `Origin` with every cross-site POST; curl and Hoist send none.
struct RequestGate {
    let configuration: ReceiverConfiguration

    init(_ configuration: ReceiverConfiguration) {
        self.configuration = configuration
    }

    func check(_ request: Request) throws(ReceiverError) {
        if let origin = request.headers[.origin], !isAllowed(origin: origin) {
            throw .forbidden(
                "requests from pages of \(origin) are refused (start the receiver with --allow-origin \(origin) to allow them)"
            )
        }
        if let token = configuration.token {
            let given = request.headers[.authorization] ?? ""
            guard given.hasPrefix("Bearer "), Self.same(Array(given.utf8.dropFirst(7)), Array(token.utf8)) else {
                throw .unauthorized("this receiver needs Authorization: Bearer TOKEN (its --token)")
            }
        }
    }

    /// Its own loopback origin (any scheme and port: pages it does not serve
    /// cannot be of it), or one allowed by name. A DNS name pointed at
    /// 127.0.0.1 by a hostile page stays another site.
    private func isAllowed(origin: String) -> Bool {
        let allowed = configuration.allowedOrigins
        if allowed.contains("*") || allowed.contains(origin) { return true }
        guard let schemeEnd = origin.firstRange(of: "://") else { return false }
        var host = origin[schemeEnd.upperBound...]
        if host.hasPrefix("[") {
            host = host[..<(host.firstIndex(of: "]").map { host.index(after: $0) } ?? host.endIndex)]
        } else if let colon = host.firstIndex(of: ":") {
            host = host[..<colon]
        }
        return ["127.0.0.1", "localhost", "[::1]"].contains(host.lowercased())
    }

    /// Compares without stopping at the first difference, so the time taken
    /// tells nothing about the token.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
