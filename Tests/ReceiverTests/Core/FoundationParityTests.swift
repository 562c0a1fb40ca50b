import Foundation
import TestSupport
import Testing

@testable import Receiver

/// The receiver no longer links full Foundation; what it wrote with it must come out the same.
@Suite struct FoundationParityTests {
    @Test func sizesAreRoundedLikeStringFormat() {
        var values: [Double] = [
            1, 1.005, 1.125, 1.375, 9.995, 9.999, 10, 10.05, 10.25, 99.95, 99.94, 100, 1023.5, 1023.4,
        ]
        values += pseudoRandomBytes(8000, seed: 5).chunks(of: 4).map {
            Double($0.reduce(0) { $0 << 8 | UInt32($1) }) / 4096 + 1
        }
        for value in values where value < 1_099_511_627_776 {
            for digits in 0...2 {
                #expect(
                    ReceiverLogEntry.fixed(value, fractionDigits: digits) == String(format: "%.\(digits)f", value),
                    "\(value) to \(digits) digits")
            }
        }
        for bytes: Int64 in [1023, 1024, 1535, 10_240, 102_400, 1_048_575, 1 << 40, Int64.max, 52_428_800 + 512] {
            #expect(ReceiverLogEntry.formatBytes(bytes).hasSuffix("iB") || bytes < 1024)
        }
    }

    @Test func httpDatesMatchTheVerbatimFormatStyle() {
        let style = Date.VerbatimFormatStyle(
            format:
                "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
            locale: Locale(identifier: "en_US_POSIX"), timeZone: TimeZone(identifier: "GMT")!,
            calendar: Calendar(identifier: .gregorian))
        var dates = [0, 1, 59.999, 86_399.5, 951_782_400, 1_795_370_400, 4_102_444_800, 1_700_000_000.75]
        dates += pseudoRandomBytes(400, seed: 6).map { Double($0) * 16_000_000 + 0.25 }
        // Through what the receiver writes: an unfinished upload's Upload-Expires.
        var upload = TusUpload(id: "a", length: 1, metadata: TusMetadata())
        for seconds in dates {
            let date = Date(timeIntervalSince1970: seconds)
            upload.expires = date
            #expect(upload.expiresHeader == date.formatted(style))
        }
        upload.expires = Date(timeIntervalSince1970: 1_795_629_600)
        #expect(upload.expiresHeader == "Wed, 25 Nov 2026 18:00:00 GMT")
    }

    @Test func invalidJSONIsDescribedLikeJSONSerialization() {
        var inputs: [[UInt8]] = [
            "", " ", "x", "{", "{\"a\":1,}", "[1,2", "{\"a\" 1}", "\"abc", "01", "-01", "1.", "-", "tru", "nul",
            "[1 2]",
            "{\"a\":1}}", "\"\\q\"", "\"a\u{01}\"", "1e", "{1:2}", "[,]", "\"\\ud800\"", "\"\\u12\"", "  \n\n  x",
            "[1,\n2,\n?]", "{\"a\":[1,2,{\"b\":}]}", "[\"é\", ü]", "1 2", "\u{FEFF}x", "\u{FEFF}[1]", "NaN", "[1]x",
            "{\"a\"}", "{\"a\":}", "[-]", "[1.e5]", "[.5]", "\"\\u00zz\"", "[\"\\ud800\\u0041\"]", "[\"\\ud800x\"]",
            "[\"\\udc00\"]", "[1e999]", "[1E999]", "[-1e999, 2e999]", "{\"a\":1e999,\"a\":1}", "{\"a\":1,\"b\":1e400}",
            "[tx]", "[fals]", "[true", "[1,]", "[1,,]", "{,}", "[01]", "[-]", "[1e+]", "[1e+5]", "[1.5e-3]", "[0.0]",
            "[00]", "[-0]", "[1-2]", "[1+2]", "[+1]", "18446744073709551616", "-9223372036854775809",
            String(repeating: "9", count: 400), String(repeating: "9", count: 30) + "e120",
            String(repeating: "[", count: 600), String(repeating: "{\"a\":", count: 600), "\"\\", "\"\\u",
            "\"\\ud800\\",
            "\"\\ud800\\u", "{\"a\":\"\\t\", \"b\": [null, true, false]}",
        ].map { Array($0.utf8) }
        inputs += [
            [0xFF, 0xFE, 0x00], [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D], [0x22, 0xFF, 0x22], [0x22, 0xFF, 0x01, 0x22],
            [0x22, 0x5C, 0xC3, 0xA9, 0x22], [0x22, 0xC3, 0x5C, 0x6E, 0x22], [0x00, 0x5B, 0x00, 0x5D],
            [0x5B, 0x00, 0x5D, 0x00], [0x5B, 0x00, 0x00, 0x00, 0x5D, 0x00, 0x00, 0x00], [0xFE, 0xFF, 0x00, 0x78],
            [0xFF, 0xFE, 0x78, 0x00], [0x00, 0x78], [0x78, 0x00], [0x5B, 0x00, 0x78], [0x00, 0xD8, 0x5D, 0x00],
            [0xEF, 0xBB, 0xBF, 0x78], [0x00, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x00, 0x78], [0x5B, 0x00, 0x00, 0xDC],
            [0x5B, 0x00, 0x00, 0xDC, 0x5D, 0x00], [0x00, 0x5B, 0xD8, 0x00, 0x00, 0x5D],
            [0x5B, 0, 0, 0, 0x5D, 0, 0, 0, 0x31], [0x5B, 0, 0, 0, 0, 0, 0x11, 0], [0x5B, 0, 0, 0, 0, 0xD8, 0, 0],
            [0xFF, 0xFE, 0x5B], [0xFE, 0xFF, 0x00, 0x5B, 0x00], [0xEF, 0xBB, 0xBF], [0xFF, 0xFE, 0, 0, 0x31],
            [0xFF, 0xFE, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0x80, 0x22],
        ]
        // Mutations of a valid document: every byte replaced by a few others, and every prefix.
        let valid = Array(#"{"a": [1, -2.5e3, "x\n\u00e9", true, null], "b": {"c": false}}"#.utf8)
        for index in valid.indices {
            inputs.append(Array(valid[..<index]))
            for replacement: UInt8 in [0x20, 0x22, 0x2C, 0x5D, 0x7D, 0x30, 0x65, 0x5C, 0x01, 0xC3] {
                var mutated = valid
                mutated[index] = replacement
                inputs.append(mutated)
            }
        }
        // Short random texts over the bytes JSON cares about.
        let alphabet = Array(#"{}[]:,"\\ u0e1-.+9tfnalsr"#.utf8) + [0x0A, 0x00, 0x01, 0xC3, 0xA9, 0xFF, 0xD8]
        let noise = pseudoRandomBytes(60_000, seed: 8)
        for start in stride(from: 0, to: noise.count - 12, by: 12) {
            inputs.append(
                noise[start..<(start + 1 + Int(noise[start]) % 12)].map { alphabet[Int($0) % alphabet.count] })
        }
        for input in inputs {
            #expect(
                JSONSyntaxCheck.problem(in: input) == reference(input),
                "\(String(decoding: input, as: UTF8.self).debugDescription) \(input.prefix(8))")
        }
    }

    /// What the receiver answered before: JSONSerialization's NSDebugDescription, or nil when it parses.
    func reference(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            return nil
        } catch {
            return (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "no description"
        }
    }
}

extension Array {
    fileprivate func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
