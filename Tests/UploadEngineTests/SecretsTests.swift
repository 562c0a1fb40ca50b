import Testing

@testable import UploadEngine

/// What Hoist shows of credentials: never their values.
@Suite struct SecretsTests {
    @Test func urlsLoseTheirPasswordsAndCredentialParameters() {
        let m = Secrets.mask
        #expect(Secrets.displayURL("https://ann:pa55@example.com/up?x=1") == "https://ann:\(m)@example.com/up?x=1")
        // A user part with no password is a token (GitLab's, a deploy key): masked whole.
        #expect(Secrets.displayURL("https://glpat-XYZ@example.com/up") == "https://\(m)@example.com/up")
        #expect(Secrets.displayURL("https://a:b@c@example.com/") == "https://a:\(m)@example.com/")
        #expect(
            Secrets.displayURL("https://api.example.com/ocr?user=42&token=s3cr3t&api_key=k#top")
                == "https://api.example.com/ocr?user=42&token=\(m)&api_key=\(m)#top")
        let presigned =
            "https://bucket.s3.amazonaws.com/a.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F20261123&X-Amz-Signature=abc123&X-Amz-Security-Token=zz"
        #expect(
            Secrets.displayURL(presigned)
                == "https://bucket.s3.amazonaws.com/a.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=\(m)&X-Amz-Signature=\(m)&X-Amz-Security-Token=\(m)"
        )
        // A URL as written in a profile, not yet expanded.
        #expect(Secrets.displayURL("${BASE}/up?token=${T}") == "${BASE}/up?token=\(m)")
        // Nothing to mask: the URL is unchanged, including odd query shapes.
        for url in ["http://127.0.0.1:8080/upload", "http://h/p?", "http://h/p?a&b=&&c=d", "http://h?q=1#f?token=x"] {
            #expect(Secrets.displayURL(url) == url)
        }
    }

    @Test func fieldNamesThatSaySecretAreSecretInAnyCase() {
        for name in [
            "password", "Password", "db_PASSWD", "clientSecret", "X-API-KEY", "apikey", "my_Token_id", "api_key",
        ] {
            #expect(Secrets.isSecretField(name), "\(name)")
        }
        for name in ["", "id", "tok", "toke", "status", "bytes_sent", "身份证 正面", "passw0rd", "sekret", "key"] {
            #expect(!Secrets.isSecretField(name), "\(name)")
        }
        for name in ["session_id", "x-amz-signature", "X-Amz-Credential", "oauth_verifier", "aws_access_key_id"] {
            #expect(Secrets.isSecretField(name), "\(name)")
        }
        #expect(Secrets.isSecretField("pin", marked: ["pin"]))
        #expect(!Secrets.isSecretField("pin", marked: ["PIN"]))
    }

    /// By rule, not by a list: `-v` once printed `Private-Token` in clear.
    @Test func headerNamesThatSaySecretAreSecret() {
        for name in [
            "Authorization", "Proxy-Authorization", "Private-Token", "X-Api-Key", "Cookie", "Set-Cookie",
            "X-Amz-Security-Token", "X-Session-Id", "Ocp-Apim-Subscription-Key", "X-Signature", "X-Auth",
        ] {
            #expect(Secrets.isSecretHeader(name), "\(name)")
        }
        for name in ["Content-Type", "Accept", "User-Agent", "X-Request-Id", "x-amz-meta-batch", "Expect"] {
            #expect(!Secrets.isSecretHeader(name), "\(name)")
        }
        #expect(Secrets.isSecretHeader("x-pin", marked: ["X-PIN"]))
        #expect(Secrets.displayValue(header: "Private-Token", value: "supersecret") == Secrets.mask)
    }

    @Test func maskingReachesEveryDepthAndLeavesTheRestAlone() {
        let value = JSONValue.object([
            .init("id", .number("7")),
            .init("account", .object([.init("access_token", .string("abc")), .init("user", .string("ann"))])),
            .init("echo", .array([.string("your key is s3cr3t!"), .string("plain")])),
            .init("pin", .string("1234")),
        ])
        let masked = Secrets.masked(value, marked: ["pin"], values: ["s3cr3t"])
        let m = JSONValue.string(Secrets.mask)
        #expect(
            masked
                == .object([
                    .init("id", .number("7")),
                    .init("account", .object([.init("access_token", m), .init("user", .string("ann"))])),
                    .init("echo", .array([m, .string("plain")])),
                    .init("pin", m),
                ]))
        let clean = JSONValue.object([.init("status", .number("200")), .init("files", .array([.string("a.jpg")]))])
        #expect(Secrets.masked(clean, marked: ["pin"], values: ["s3cr3t"]) == clean)
    }
}
