import Foundation
import NIOCore
import TestSupport
import Testing

@testable import Receiver

/// Parsing the per-request query knobs.
@Suite struct RequestKnobsTests {
    @Test func queryKnobs() throws {
        let knobs = try RequestKnobs(
            query: "status=201&reply=text&early=1&delay=5&stall=7&json=%7B%22a%22%3A1e%2B5%7D&other=x")
        #expect(knobs.status == 201)
        #expect(knobs.reply == .text)
        #expect(knobs.early)
        #expect(knobs.delay == .milliseconds(5))
        #expect(knobs.stall == .milliseconds(7))
        #expect(knobs.json == #"{"a":1e+5}"#)
        #expect(throws: ReceiverError.badRequest("?status=99 is not a status code from 200 to 599")) {
            try RequestKnobs(query: "status=99")
        }
        #expect(throws: ReceiverError.self) { try RequestKnobs(query: "reply=xml") }
        #expect(try RequestKnobs(query: "early=0").early == false)
    }
}
