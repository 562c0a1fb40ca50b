import Testing
import WireRules

@Suite struct TusMetadataTests {
    func decoded(_ header: String) throws -> [String] {
        try TusMetadata.decode(header).map {
            $0.key + "=" + ($0.value.map { String(decoding: $0, as: UTF8.self) } ?? "nil")
        }
    }

    @Test func encodesInOrderWithEmptyValuesAlone() throws {
        let header = TusMetadata.encode([("filename", "身份证 正面.jpg"), ("empty", ""), ("note", "a, b c")])
        #expect(header == "filename 6Lqr5Lu96K+BIOato+mdoi5qcGc=,empty,note YSwgYiBj")
        #expect(try decoded(header) == ["filename=身份证 正面.jpg", "empty=nil", "note=a, b c"])
    }

    @Test func decodesWhatClientsSend() throws {
        #expect(try decoded("") == [])
        #expect(try decoded("   ") == [])
        #expect(try decoded("flag") == ["flag=nil"])
        #expect(try decoded("filename ,name YQ==") == ["filename=nil", "name=a"])
        #expect(try decoded("  a  YQ== ,b") == ["a=a", "b=nil"])
        #expect(try decoded("e ") == ["e=nil"])
        #expect(try decoded("z AA==") == ["z=\u{0}"])
    }

    @Test func refusesWhatTheSpecForbids() {
        for bad in [
            ",", "a,", ",a", "a,,b", "a YQ== extra", "a !!!", "a YQ", "a YQ=", "a Y===", "a =YQ=", "a YQ==YQ==",
            "a YQ==,a YQ==", "a,a", "k\u{E9}y YQ==", "k\u{7F} YQ==", "k\u{1B} YQ==", "a\tb YQ==", "a\u{202E} YQ==",
        ] {
            #expect(throws: TusMetadata.Refusal.self, "\(bad.debugDescription)") { try TusMetadata.decode(bad) }
        }
        #expect(throws: TusMetadata.Refusal(reason: "the key \"a\" appears twice")) { try TusMetadata.decode("a,a") }
    }

    @Test func keysAreVisibleASCIIWithoutCommas() {
        #expect(TusMetadata.problem(withKey: "ok_key-1.x") == nil)
        #expect(TusMetadata.problem(withKey: "") == "a tus metadata key cannot be empty")
        for key in ["two words", "a,b", "名", "tab\t", "nl\n", "del\u{7F}", "\u{202E}"] {
            #expect(TusMetadata.problem(withKey: key) != nil, "\(key.debugDescription)")
        }
    }
}
