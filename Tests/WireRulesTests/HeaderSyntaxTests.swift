import Testing
import WireRules

@Suite struct HeaderSyntaxTests {
    @Test func tokensAreRFC9110Tchars() {
        for name in ["Content-Type", "X-Hoist_1", "!#$%&'*+-.^_`|~", "a"] {
            #expect(HeaderSyntax.isToken(name), "\(name)")
        }
        for name in [
            "", " ", "X Name", "X:Name", "X-Name:", "(x)", "a\"b", "a,b", "a;b", "a/b", "a@b", "a[b]", "a{b}", "a=b",
            "a\\b", "a?b", "Tab\there", "NUL\u{0}", "DEL\u{7F}", "CR\r", "LF\n", "Ünïcode", "名前", "X-\u{202E}evil",
            "X-\u{9B}", "X-\u{200B}",
        ] {
            #expect(!HeaderSyntax.isToken(name), "\(name.debugDescription)")
        }
    }

    @Test func everyByteIsClassified() {
        let tchars = Set(Array("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8))
        for byte in UInt8.min...UInt8.max {
            #expect(HeaderSyntax.isTokenByte(byte) == tchars.contains(byte), "\(byte)")
        }
    }

    @Test func valuesRefuseCRLFAndNUL() {
        for value in ["", "text/plain; charset=utf-8", "tab\tinside", "身份证", "\u{1B}[31m", "\u{7F}"] {
            #expect(!HeaderSyntax.hasForbiddenValueByte(value), "\(value.debugDescription)")
        }
        for value in ["a\r\nX-Injected: 1", "a\n", "\ra", "a\u{0}b"] {
            #expect(HeaderSyntax.hasForbiddenValueByte(value), "\(value.debugDescription)")
        }
        #expect(HeaderSyntax.hasForbiddenValueByte("a\r\n"[...]))
    }
}
