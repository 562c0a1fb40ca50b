/// A terminal size in columns and rows.
public struct Size: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A rectangle of cells. Layout splits rectangles; views draw inside them.
public struct Rect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width == 0 || height == 0 }

    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    /// The rectangle shrunk by `by` cells on every side.
    public func inset(_ by: Int) -> Rect {
        Rect(x: x + by, y: y + by, width: width - 2 * by, height: height - 2 * by)
    }

    /// The top `rows` rows and the rest.
    public func splitTop(_ rows: Int) -> (top: Rect, rest: Rect) {
        let r = min(max(0, rows), height)
        return (Rect(x: x, y: y, width: width, height: r), Rect(x: x, y: y + r, width: width, height: height - r))
    }

    /// The rest and the bottom `rows` rows.
    public func splitBottom(_ rows: Int) -> (rest: Rect, bottom: Rect) {
        let r = min(max(0, rows), height)
        return (Rect(x: x, y: y, width: width, height: height - r), Rect(x: x, y: maxY - r, width: width, height: r))
    }

    /// The left `columns` columns and the rest.
    public func splitLeft(_ columns: Int) -> (left: Rect, rest: Rect) {
        let c = min(max(0, columns), width)
        return (Rect(x: x, y: y, width: c, height: height), Rect(x: x + c, y: y, width: width - c, height: height))
    }

    /// A rectangle of at most the given size, centred in this one.
    public func centered(width w: Int, height h: Int) -> Rect {
        let cw = min(w, width)
        let ch = min(h, height)
        return Rect(x: x + (width - cw) / 2, y: y + (height - ch) / 2, width: cw, height: ch)
    }

    /// Row `index` of this rectangle, one cell high.
    public func row(_ index: Int) -> Rect {
        Rect(x: x, y: y + index, width: width, height: index < height ? 1 : 0)
    }
}
