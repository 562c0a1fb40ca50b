/// A one-line text editor: the text and a cursor, edited by keys the way
/// a shell's line editor is (Ctrl-A/E/U/K/W, arrows, Home/End).
public struct TextInput: Sendable, Hashable {
    public private(set) var characters: [Character]
    /// The cursor as an index into `characters` (0...count).
    public private(set) var cursor: Int

    public init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    public var text: String { String(characters) }

    /// The same input shown as dots, one a character, the cursor in place.
    public var masked: TextInput {
        var copy = self
        copy.characters = Array(repeating: "•", count: characters.count)
        return copy
    }

    /// Applies an editing key. Returns false for keys it does not edit with
    /// (Enter, Tab, Escape, Up, Down, ...), which the caller then handles.
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c):
            characters.insert(c, at: cursor)
            cursor += 1
        case .backspace, .control("h"):
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case .delete, .control("d"):
            if cursor < characters.count { characters.remove(at: cursor) }
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(characters.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = characters.count
        case .control("u"):
            characters.removeFirst(cursor)
            cursor = 0
        case .control("k"): characters.removeLast(characters.count - cursor)
        case .control("w"):
            var start = cursor
            while start > 0, characters[start - 1] == " " { start -= 1 }
            while start > 0, characters[start - 1] != " " { start -= 1 }
            characters.removeSubrange(start..<cursor)
            cursor = start
        default:
            return false
        }
        return true
    }

    /// The part of the text to show in `width` columns so the cursor stays
    /// in view, and the cursor's column within it.
    public func window(width: Int) -> (text: String, cursorColumn: Int) {
        guard width > 1 else { return ("", 0) }
        var start = 0
        var before = TextWidth.columns(of: String(characters[0..<cursor]))
        while before > width - 1, start < cursor {
            before -= TextWidth.columns(of: characters[start])
            start += 1
        }
        var shown = ""
        var used = 0
        for c in characters[start...] {
            let w = TextWidth.columns(of: c)
            if used + w > width { break }
            shown.append(c)
            used += w
        }
        return (shown, before)
    }
}
