/// Splits a header such as `form-data; name="a"; filename="b;c.txt"` into its leading value and parameters.
///
/// Quoted values run to the next `"`, so a `;` inside quotes stays in the value. `backslashEscapes`
/// selects RFC 9110 quoted-strings (`\"` is a quote), used for Content-Type; Content-Disposition in
/// multipart/form-data follows WHATWG, where browsers and curl percent-encode `"` instead.
struct HeaderParameters: Equatable {
    /// The part before the first `;`, trimmed (not lowercased).
    var value: String
    /// Parameters in order; names lowercased, values unquoted but otherwise as sent.
    var parameters: [(name: String, value: String)]

    static func == (lhs: HeaderParameters, rhs: HeaderParameters) -> Bool {
        lhs.value == rhs.value && lhs.parameters.map(\.name) == rhs.parameters.map(\.name)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// The first parameter called `name` (case-insensitive).
    subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return parameters.first { $0.name == lowered }?.value
    }

    init(parsing header: String, backslashEscapes: Bool) {
        let bytes = Array(header.utf8)
        var index = 0

        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        func string(_ slice: ArraySlice<UInt8>) -> String { String(decoding: slice, as: UTF8.self) }
        func trimmed(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var slice = slice
            while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
            while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
            return slice
        }

        while index < bytes.count, bytes[index] != UInt8(ascii: ";") { index += 1 }
        value = string(trimmed(bytes[0..<index]))
        parameters = []

        while index < bytes.count {
            while index < bytes.count, bytes[index] == UInt8(ascii: ";") || isSpace(bytes[index]) { index += 1 }
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ";") {
                index += 1
            }
            let name = string(trimmed(bytes[nameStart..<index])).lowercased()
            var parameterValue = ""
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < bytes.count, isSpace(bytes[index]) { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    index += 1
                    var unquoted: [UInt8] = []
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        if backslashEscapes, bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
                            index += 1
                        }
                        unquoted.append(bytes[index])
                        index += 1
                    }
                    parameterValue = String(decoding: unquoted, as: UTF8.self)
                    // Ignore anything between the closing quote and the next `;`.
                    while index < bytes.count, bytes[index] != UInt8(ascii: ";") { index += 1 }
                } else {
                    let valueStart = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: ";") { index += 1 }
                    parameterValue = string(trimmed(bytes[valueStart..<index]))
                }
            }
            if !name.isEmpty {
                parameters.append((name: name, value: parameterValue))
            }
        }
    }
}
