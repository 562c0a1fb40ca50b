import WireRules

/// The `Content-Range` of a session PUT, as Cloud Storage's resumable protocol uses it.
enum GCSContentRange: Equatable {
    /// `bytes FIRST-LAST/TOTAL`, or `bytes FIRST-LAST/*` while the size is unknown.
    case bytes(first: Int64, last: Int64, total: Int64?)
    /// `bytes */TOTAL` or `bytes */*`: a status query (which ends an upload whose TOTAL is already held).
    case query(total: Int64?)

    init(parsing header: String) throws(GCSFailure) {
        let text = header.trimmingPrefix(" ")
        guard text.hasPrefix("bytes ") || text.hasPrefix("bytes=") else { throw Self.malformed(header) }
        let spec = text.dropFirst("bytes ".count)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { throw Self.malformed(header) }
        let total: Int64?
        if halves[1] == "*" {
            total = nil
        } else {
            guard let value = Self.number(halves[1]) else { throw Self.malformed(header) }
            total = value
        }
        if halves[0] == "*" {
            self = .query(total: total)
            return
        }
        let ends = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Self.number(ends[0]), let last = Self.number(ends[1]), first <= last else {
            throw Self.malformed(header)
        }
        if let total, last >= total {
            throw .invalid("Content-Range \(header): the last byte \(last) is not below the total \(total)")
        }
        self = .bytes(first: first, last: last, total: total)
    }

    /// Digits only, at most 18 of them (no sign, no overflow).
    private static func number(_ text: Substring) -> Int64? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int64(text)
    }

    private static func malformed(_ header: String) -> GCSFailure {
        .invalid(
            "Failed to parse Content-Range header: \"\(header)\" is not bytes FIRST-LAST/TOTAL, bytes */TOTAL or *")
    }
}

/// `x-goog-hash: crc32c=BASE64,md5=BASE64` (either or both; one header or several).
struct GCSHashes: Equatable {
    var crc32c: String?
    var md5: String?

    init(crc32c: String? = nil, md5: String? = nil) {
        self.crc32c = crc32c
        self.md5 = md5
    }

    init(parsing values: [String]) throws(GCSFailure) {
        for item in values.flatMap({ $0.split(separator: ",") }) {
            guard let equals = item.firstIndex(of: "=") else {
                throw .invalid("x-goog-hash: \"\(item)\" is not crc32c=BASE64 or md5=BASE64")
            }
            let key = item[..<equals].trimmingPrefix(" ").lowercased()
            let value = String(item[item.index(after: equals)...]).trimmingPrefix(" ")
            let expectedBytes = key == "crc32c" ? 4 : key == "md5" ? 16 : nil
            guard let expectedBytes else { continue }
            guard Base64.decode(value)?.count == expectedBytes else {
                throw .invalid("x-goog-hash: the \(key) value \"\(value)\" is not \(expectedBytes) bytes of base64")
            }
            if key == "crc32c" { crc32c = String(value) } else { md5 = String(value) }
        }
    }

    var isEmpty: Bool { crc32c == nil && md5 == nil }
}
