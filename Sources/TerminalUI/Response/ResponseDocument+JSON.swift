import UploadEngine

/// Colours of JSON in the Response pane, readable on light and dark palettes.
enum JSONStyle {
    static let key = Style(foreground: .blue, bold: true)
    static let index = Style.plain.dimmed
    static let string = Style.fg(.green)
    static let number = Style.fg(.magenta)
    static let bool = Style.fg(.yellow)
    static let null = Style.plain.dimmed
    static let marker = Style.fg(.cyan)
    static let summary = Style.plain.dimmed
    static let punctuation = Style.plain

    static func scalar(_ value: JSONValue) -> ResponseDocument.Span {
        switch value {
        case .string(let text): return .init(ResponseText.quoted(text), string)
        case .number(let literal): return .init(ResponseText.displayable(literal), number)
        case .bool(let flag): return .init(flag ? "true" : "false", bool)
        case .null: return .init("null", null)
        case .object: return .init("{}", punctuation)
        case .array: return .init("[]", punctuation)
        }
    }
}

/// Node paths in JSONPath spelling: `$`, `$.data`, `$.files[0]`, `$["a.b"]`.
enum JSONNodePath {
    static let root = "$"

    /// The path of member `key` of the object at `parent`.
    static func member(_ parent: String, _ key: String) -> String {
        isPlain(key) ? parent + "." + key : parent + "[" + ResponseText.quoted(key) + "]"
    }

    /// The path of element `index` of the array at `parent`.
    static func element(_ parent: String, _ index: Int) -> String {
        parent + "[" + String(index) + "]"
    }

    /// A key that reads unambiguously after a dot.
    static func isPlain(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return !key.unicodeScalars.contains { scalar in
            ResponseText.isControl(scalar) || scalar == "." || scalar == "[" || scalar == "]" || scalar == "\""
                || scalar == "'" || scalar == " " || scalar == "\\"
        }
    }

    /// The paths of every non-empty object and array below the root.
    static func containers(in value: JSONValue) -> Set<String> {
        var paths: Set<String> = []
        func visit(_ value: JSONValue, _ path: String) {
            switch value {
            case .object(let members):
                if !members.isEmpty, path != root { paths.insert(path) }
                for member in members { visit(member.value, JSONNodePath.member(path, member.key)) }
            case .array(let items):
                if !items.isEmpty, path != root { paths.insert(path) }
                for (index, item) in items.enumerated() { visit(item, JSONNodePath.element(path, index)) }
            default:
                break
            }
        }
        visit(value, root)
        return paths
    }
}

/// Flattens the expanded part of a JSON value into tree lines: two columns
/// of indent per level, "▾"/"▸" before containers, no brackets or commas.
struct JSONTreeBuilder {
    enum Label {
        case root
        case key(String)
        case index(Int)
    }

    let collapsed: Set<String>
    var lines: [ResponseDocument.Line]
    /// Per depth: the indent before a leaf, an expanded and a collapsed container.
    private var prefixes: [(leaf: String, expanded: String, collapsed: String)] = []

    init(collapsed: Set<String>, lines: [ResponseDocument.Line]) {
        self.collapsed = collapsed
        self.lines = lines
    }

    mutating func add(_ value: JSONValue, label: Label, path: String, depth: Int, parent: Int?) {
        let count: Int
        let isObject: Bool
        switch value {
        case .object(let members):
            count = members.count
            isObject = true
        case .array(let items):
            count = items.count
            isObject = false
        default:
            count = 0
            isObject = false
        }
        let prefix = self.prefix(depth)
        guard count > 0 else {
            var spans = [ResponseDocument.Span(prefix.leaf)]
            if case .root = label {
            } else {
                spans.append(labelSpan(label))
                spans.append(.init(": ", JSONStyle.punctuation))
            }
            spans.append(JSONStyle.scalar(value))
            lines.append(.init(spans: spans, path: path, parent: parent))
            return
        }
        let isCollapsed = collapsed.contains(path)
        var spans = [
            ResponseDocument.Span(isCollapsed ? prefix.collapsed : prefix.expanded, JSONStyle.marker), labelSpan(label),
        ]
        if isCollapsed { spans.append(.init(isObject ? " {…}" : " […]", JSONStyle.punctuation)) }
        let noun = isObject ? (count == 1 ? " key" : " keys") : (count == 1 ? " item" : " items")
        spans.append(.init(" " + String(count) + noun, JSONStyle.summary))
        let line = lines.count
        lines.append(.init(spans: spans, path: path, isContainer: true, isCollapsed: isCollapsed, parent: parent))
        guard !isCollapsed else { return }
        switch value {
        case .object(let members):
            for member in members {
                add(
                    member.value, label: .key(member.key), path: JSONNodePath.member(path, member.key),
                    depth: depth + 1, parent: line)
            }
        case .array(let items):
            for index in items.indices {
                add(
                    items[index], label: .index(index), path: JSONNodePath.element(path, index), depth: depth + 1,
                    parent: line)
            }
        default:
            break
        }
    }

    private func labelSpan(_ label: Label) -> ResponseDocument.Span {
        switch label {
        case .root: return .init(JSONNodePath.root, JSONStyle.index)
        case .key(let key): return .init(key.isEmpty ? "\"\"" : ResponseText.escaped(key), JSONStyle.key)
        case .index(let index): return .init(String(index), JSONStyle.index)
        }
    }

    private mutating func prefix(_ depth: Int) -> (leaf: String, expanded: String, collapsed: String) {
        while prefixes.count <= depth {
            let indent = String(repeating: " ", count: prefixes.count * 2)
            prefixes.append((indent + "  ", indent + "▾ ", indent + "▸ "))
        }
        return prefixes[depth]
    }
}

/// Pretty-prints JSON with a two-space indent, coloured like the tree.
struct JSONPrettyPrinter {
    var lines: [ResponseDocument.Line]
    private var current: [ResponseDocument.Span] = []

    init(lines: [ResponseDocument.Line]) {
        self.lines = lines
    }

    mutating func print(_ value: JSONValue) {
        write(value, depth: 0, comma: false)
    }

    private mutating func write(_ value: JSONValue, depth: Int, comma: Bool) {
        let tail = comma ? "," : ""
        switch value {
        case .object(let members) where !members.isEmpty:
            current.append(.init("{", JSONStyle.punctuation))
            flush()
            for (index, member) in members.enumerated() {
                current = [
                    .init(String(repeating: "  ", count: depth + 1)),
                    .init(ResponseText.quoted(member.key), JSONStyle.key),
                    .init(": ", JSONStyle.punctuation),
                ]
                write(member.value, depth: depth + 1, comma: index < members.count - 1)
            }
            current = [.init(String(repeating: "  ", count: depth) + "}" + tail, JSONStyle.punctuation)]
            flush()
        case .array(let items) where !items.isEmpty:
            current.append(.init("[", JSONStyle.punctuation))
            flush()
            for (index, item) in items.enumerated() {
                current = [.init(String(repeating: "  ", count: depth + 1))]
                write(item, depth: depth + 1, comma: index < items.count - 1)
            }
            current = [.init(String(repeating: "  ", count: depth) + "]" + tail, JSONStyle.punctuation)]
            flush()
        default:
            current.append(JSONStyle.scalar(value))
            if comma { current.append(.init(",", JSONStyle.punctuation)) }
            flush()
        }
    }

    private mutating func flush() {
        lines.append(.init(spans: current))
        current = []
    }
}
