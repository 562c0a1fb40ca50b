/// An overlay's list with a cursor and a first visible row: the history
/// and the profile picker move the same way.
public protocol ScrollingList {
    associatedtype Item
    var items: [Item] { get }
    var cursor: Int { get set }
    var top: Int { get set }
}

extension ScrollingList {
    public var selected: Item? { items.indices.contains(cursor) ? items[cursor] : nil }

    mutating func move(by delta: Int, listHeight: Int) {
        guard !items.isEmpty else { return }
        cursor = min(max(0, cursor + delta), items.count - 1)
        if cursor < top { top = cursor }
        if cursor >= top + listHeight { top = cursor - listHeight + 1 }
    }

    /// ↑↓ j k, PgUp PgDn, g G, Home End. False for any other key.
    mutating func handleMove(_ key: Key, listHeight: Int) -> Bool {
        switch key {
        case .down, .character("j"): move(by: 1, listHeight: listHeight)
        case .up, .character("k"): move(by: -1, listHeight: listHeight)
        case .pageDown: move(by: listHeight, listHeight: listHeight)
        case .pageUp: move(by: -listHeight, listHeight: listHeight)
        case .character("g"), .home: move(by: -items.count, listHeight: listHeight)
        case .character("G"), .end: move(by: items.count, listHeight: listHeight)
        default: return false
        }
        return true
    }
}
