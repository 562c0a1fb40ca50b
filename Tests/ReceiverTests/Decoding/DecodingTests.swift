import Foundation
import NIOCore
import TestSupport
import Testing

@testable import Receiver

/// What bodies are decoded with: Content-Type parameters, percent-decoding, JSON values.
@Suite struct DecodingTests {
    @Test func contentTypeParameters() {
        let quoted = MediaType(parsing: #"Multipart/Form-Data; charset=utf-8; boundary="a\"b; c""#)
        #expect(quoted.isMultipartFormData)
        #expect(quoted.parameters["BOUNDARY"] == #"a"b; c"#)
        #expect(quoted.parameters["charset"] == "utf-8")
        #expect(MediaType(parsing: "application/problem+json").isJSON)
        #expect(!MediaType(parsing: "text/json-ish").isJSON)
        #expect(MediaType(parsing: "application/x-www-form-urlencoded; charset=UTF-8").isURLEncodedForm)
    }

    @Test func percentDecoding() {
        #expect(PercentDecoding.decodeString("a%20b+c", plusAsSpace: true) == "a b c")
        #expect(PercentDecoding.decodeString("a%20b+c", plusAsSpace: false) == "a b+c")
        #expect(PercentDecoding.decodeString("100%", plusAsSpace: false) == "100%")
        #expect(PercentDecoding.decodeString("%E8%BA%AB", plusAsSpace: false) == "身")
        let pairs = PercentDecoding.pairs("a=1&&b=&c&d=x%3Dy", plusAsSpace: true)
        #expect(pairs.map(\.name) == ["a", "b", "c", "d"])
        #expect(pairs.map(\.value) == ["1", "", "", "x=y"])
    }

    @Test func receivedJSONRoundTrips() throws {
        let text = #"{"a":[1,-2.5,"x",true,false,null,{}],"b":{"c":"d"}}"#
        let value = try JSONDecoder().decode(ReceivedJSON.self, from: Data(text.utf8))
        #expect(value["a"]?[1] == .number(-2.5))
        #expect(value["a"]?[3] == .bool(true))
        #expect(value["a"]?[5] == .null)
        let again = try JSONDecoder().decode(ReceivedJSON.self, from: JSONEncoder().encode(value))
        #expect(again == value)
    }
}
