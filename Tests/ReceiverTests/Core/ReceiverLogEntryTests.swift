import Foundation
import NIOCore
import TestSupport
import Testing

@testable import Receiver

/// The receiver's log line.
@Suite struct ReceiverLogEntryTests {
    @Test func logLine() {
        let entry = ReceiverLogEntry(
            method: "POST", path: "/upload", status: 200, bodyBytes: 20_787, files: 2, fields: 1,
            duration: .milliseconds(12), remoteAddress: "127.0.0.1:5000")
        #expect(entry.line == "POST /upload 200 2 files 1 field 20.3 KiB 12 ms", "KiB, as the UI says")
        let reset = ReceiverLogEntry(
            method: "PUT", path: "/x", status: 0, bodyBytes: 512, files: 0, fields: 0,
            duration: .microseconds(300), remoteAddress: nil)
        #expect(reset.line == "PUT /x reset 512 B 0 ms")
        #expect(
            ReceiverLogEntry.formatBytes(200 << 20) == "200 MiB" && ReceiverLogEntry.formatBytes(2048) == "2.00 KiB")
    }
}
