/// `${NAME}` in a profile's string values, replaced by the environment
/// variable NAME. `$${` stands for a literal `${`; any other `$` is kept as
/// it is. A variable that is not set is an error, never an empty string.
enum EnvironmentExpansion {
    /// Expands `text`, the value of `key` (e.g. `headers[0].value`), for messages.
    static func expand(_ text: String, key: String, environment: [String: String]) throws(ProfileValueError) -> String {
        guard text.contains("$") else { return text }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            if after.hasPrefix("${") {
                // `$${` is a literal `${`.
                result += "${"
                rest = after.dropFirst(2)
            } else if after.hasPrefix("{") {
                let body = after.dropFirst()
                guard let close = body.firstIndex(of: "}") else {
                    throw ProfileValueError("\(key) has \"${\" without a closing \"}\" (write $${ for a literal ${)")
                }
                let name = String(body[..<close])
                guard isVariableName(name) else {
                    throw ProfileValueError(
                        "\(key) has ${\(name)}, which is not a variable name (letters, digits and _; write $${ for a literal ${)"
                    )
                }
                guard let value = environment[name] else {
                    throw ProfileValueError("\(key) uses ${\(name)}, which is not set")
                }
                result += value
                rest = body[body.index(after: close)...]
            } else {
                result += "$"
                rest = after
            }
        }
        return result + rest
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }
}
