import FoundationEssentials
import WireRules
import _CryptoExtras

/// A Google service-account key (`GOOGLE_APPLICATION_CREDENTIALS`), as
/// `gcloud iam service-accounts keys create` writes it: the key signs a JWT
/// (RS256), which its `token_uri` exchanges for an access token (RFC 7523),
/// as Google's own libraries do.
struct GCSServiceAccount: Sendable {
    static let scope = "https://www.googleapis.com/auth/devstorage.read_write"

    let clientEmail: String
    let privateKey: String
    let tokenURI: String

    /// The key file at `path`, checked; never quoted in an error (it holds the key).
    static func load(_ path: String) throws(UploadFailure) -> GCSServiceAccount {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .other("cannot read the service-account key \(path) (GOOGLE_APPLICATION_CREDENTIALS)")
        }
        guard let value = try? JSONParser.parse(Array(data)),
            case .string(let email)? = value[path: "client_email"], case .string(let key)? = value[path: "private_key"]
        else {
            throw .other(
                "\(path) is no service-account key: it has no client_email and private_key (GOOGLE_APPLICATION_CREDENTIALS)"
            )
        }
        var uri = "https://oauth2.googleapis.com/token"
        if case .string(let given)? = value[path: "token_uri"] { uri = given }
        return GCSServiceAccount(clientEmail: email, privateKey: key, tokenURI: uri)
    }

    /// The signed JWT the token endpoint takes, valid for an hour from `now`.
    func assertion(now: Date = Date()) throws(UploadFailure) -> String {
        let issued = Int(now.timeIntervalSince1970)
        let header = JSONValue.object([.init("alg", .string("RS256")), .init("typ", .string("JWT"))])
        let claims = JSONValue.object([
            .init("iss", .string(clientEmail)), .init("scope", .string(Self.scope)), .init("aud", .string(tokenURI)),
            .init("iat", .number(String(issued))), .init("exp", .number(String(issued + 3600))),
        ])
        let signed =
            Self.base64URL(Array(header.compactJSON.utf8)) + "." + Self.base64URL(Array(claims.compactJSON.utf8))
        do {
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: privateKey)
            let signature = try key.signature(for: Array(signed.utf8), padding: .insecurePKCS1v1_5)
            return signed + "." + Self.base64URL(Array(signature.rawRepresentation))
        } catch {
            throw .other("the service-account key of \(clientEmail) cannot sign: its private_key is no RSA key")
        }
    }

    /// The form `POST` to `tokenURI`.
    func tokenRequestBody(now: Date = Date()) throws(UploadFailure) -> [UInt8] {
        Array(
            ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try assertion(now: now)))
                .utf8)
    }

    /// `access_token` and `expires_in` of the token endpoint's answer.
    static func token(from answer: [UInt8]) -> (token: String, seconds: Int)? {
        guard let value = try? JSONParser.parse(answer), case .string(let token)? = value[path: "access_token"] else {
            return nil
        }
        var seconds = 3600
        if case .number(let text)? = value[path: "expires_in"], let given = Int(text) { seconds = given }
        return (token, seconds)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = String(decoding: Base64.encode(bytes), as: UTF8.self)
        text = String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
