/// The XML of S3's answers, read into a tree of elements: names without
/// their namespace prefix, text with entities and CDATA resolved, attributes
/// checked and dropped. Strict where a server could only be wrong
/// (mismatched or unclosed tags, an unknown entity, text outside the root),
/// and never recursive, so a hostile answer cannot exhaust the stack.
/// Hoist's own, so that neither XMLCoder nor FoundationXML (and with them
/// the whole of Foundation and ICU) is linked for a handful of fields.
struct S3XML: Sendable, Hashable {
    var name: String
    var children: [S3XML] = []
    var text = ""

    /// The first child named `name`.
    subscript(_ name: String) -> S3XML? { children.first { $0.name == name } }

    /// Every child named `name`.
    func all(_ name: String) -> [S3XML] { children.filter { $0.name == name } }

    /// The text of the child `name`, trimmed, when there is one.
    func value(_ name: String) -> String? {
        self[name].map { $0.text.trimmingXMLSpace() }
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    /// Nesting deeper than this is refused: S3's answers are three levels deep.
    static let maxDepth = 64

    /// The root element of `bytes`, which must be UTF-8.
    static func parse(_ bytes: [UInt8]) throws(ParseError) -> S3XML {
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
        }

        func fail(_ what: String) -> ParseError {
            ParseError(description: "\(what) at byte \(at)")
        }

        func peek(_ text: String) -> Bool {
            bytes[at...].starts(with: text.utf8)
        }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at].isXMLSpace { at += 1 }
        }

        /// Moves past `end`, which must come.
        mutating func skip(past end: String, what: String) throws(ParseError) {
            let pattern = Array(end.utf8)
            while at < bytes.count {
                if bytes[at...].starts(with: pattern) {
                    at += pattern.count
                    return
                }
                at += 1
            }
            throw fail("unterminated \(what)")
        }

        /// Skips a comment, processing instruction or DOCTYPE if one starts here.
        mutating func skipMarkup() throws(ParseError) -> Bool {
            if peek("<!--") {
                try skip(past: "-->", what: "comment")
            } else if peek("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if peek("<!DOCTYPE") {
                // An internal subset could declare entities: S3 never sends one.
                var depth = 0
                while at < bytes.count {
                    let byte = bytes[at]
                    at += 1
                    if byte == UInt8(ascii: "[") { throw fail("a DOCTYPE with declarations") }
                    if byte == UInt8(ascii: "<") { depth += 1 }
                    if byte == UInt8(ascii: ">") {
                        depth -= 1
                        if depth == 0 { return true }
                    }
                }
                throw fail("unterminated DOCTYPE")
            } else {
                return false
            }
            return true
        }

        mutating func document() throws(ParseError) -> S3XML {
            while true {
                skipSpace()
                guard try skipMarkup() else { break }
            }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "<") else { throw fail("no root element") }
            let root = try element()
            while true {
                skipSpace()
                guard at < bytes.count else { return root }
                guard try skipMarkup() else { throw fail("content after the root element") }
            }
        }

        /// A name: up to a space, `/`, `>` or `=`.
        mutating func name() throws(ParseError) -> String {
            let start = at
            while at < bytes.count, !bytes[at].isXMLSpace,
                ![UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "<")].contains(bytes[at])
            {
                at += 1
            }
            guard at > start else { throw fail("a missing name") }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }

        /// A start tag from its `<`: the qualified name, and whether it closed itself.
        mutating func startTag() throws(ParseError) -> (name: String, empty: Bool) {
            at += 1
            let qualified = try name()
            while true {
                skipSpace()
                guard at < bytes.count else { throw fail("unterminated tag <\(qualified)>") }
                if bytes[at] == UInt8(ascii: ">") {
                    at += 1
                    return (qualified, false)
                }
                if peek("/>") {
                    at += 2
                    return (qualified, true)
                }
                _ = try name()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { throw fail("an attribute without =") }
                at += 1
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else {
                    throw fail("an attribute value without quotes")
                }
                let quote = bytes[at]
                at += 1
                while at < bytes.count, bytes[at] != quote {
                    if bytes[at] == UInt8(ascii: "<") { throw fail("< in an attribute value") }
                    at += 1
                }
                guard at < bytes.count else { throw fail("an unterminated attribute value") }
                at += 1
            }
        }

        /// The element starting here, with everything inside it; a stack, not recursion.
        mutating func element() throws(ParseError) -> S3XML {
            var open: [(qualified: String, node: S3XML)] = []
            var text: [UInt8] = []
            func localName(_ qualified: String) -> String {
                qualified.lastIndex(of: ":").map { String(qualified[qualified.index(after: $0)...]) } ?? qualified
            }
            func closeText() {
                if !text.isEmpty, !open.isEmpty {
                    open[open.count - 1].node.text += String(decoding: text, as: UTF8.self)
                }
                text = []
            }
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "&") {
                    text += try entity()
                } else if byte != UInt8(ascii: "<") {
                    text.append(byte)
                    at += 1
                } else if peek("<![CDATA[") {
                    at += 9
                    let start = at
                    try skip(past: "]]>", what: "CDATA section")
                    text += bytes[start..<(at - 3)]
                } else if try skipMarkup() {
                    continue
                } else if peek("</") {
                    closeText()
                    at += 2
                    let qualified = try name()
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: ">") else {
                        throw fail("an unterminated end tag")
                    }
                    at += 1
                    guard let (expected, node) = open.popLast(), expected == qualified else {
                        throw fail("</\(qualified)> closes no open element")
                    }
                    guard !open.isEmpty else { return node }
                    open[open.count - 1].node.children.append(node)
                } else {
                    closeText()
                    guard open.count < S3XML.maxDepth else {
                        throw fail("elements nested deeper than \(S3XML.maxDepth)")
                    }
                    let (qualified, empty) = try startTag()
                    let node = S3XML(name: localName(qualified))
                    if empty {
                        guard !open.isEmpty else { return node }
                        open[open.count - 1].node.children.append(node)
                    } else {
                        open.append((qualified, node))
                    }
                }
                if open.isEmpty { throw fail("text outside the root element") }
            }
            throw fail("the answer ends inside <\(open.last?.qualified ?? "")>")
        }

        /// `&lt;` `&gt;` `&amp;` `&quot;` `&apos;` `&#N;` `&#xH;`, as UTF-8.
        mutating func entity() throws(ParseError) -> [UInt8] {
            guard let end = bytes[at...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                throw fail("an unterminated entity")
            }
            let name = String(decoding: bytes[(at + 1)..<end], as: UTF8.self)
            let named = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]
            var resolved = named[name]
            if resolved == nil, name.hasPrefix("#") {
                let digits = name.dropFirst()
                let code = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                resolved = code.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            }
            guard let resolved else { throw fail("an unknown entity &\(name);") }
            at = end + 1
            return Array(resolved.utf8)
        }
    }
}

extension UInt8 {
    fileprivate var isXMLSpace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}

extension String {
    /// Without XML's white space (space, tab, CR, LF) at either end.
    func trimmingXMLSpace() -> String {
        let utf8 = Array(self.utf8)
        guard let first = utf8.firstIndex(where: { !$0.isXMLSpace }),
            let last = utf8.lastIndex(where: { !$0.isXMLSpace })
        else { return "" }
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}
