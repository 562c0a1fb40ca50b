/// A horizontal run of cells that changed between two frames.
public struct GridChange: Sendable, Hashable {
    public var x: Int
    public var y: Int
    /// The cells to write from (x, y), continuation cells included.
    public var cells: [Cell]
}

extension Grid {
    /// The runs of cells that differ from `previous`, row by row, left to
    /// right. With no previous frame (or a different size) every row is one
    /// run. A run never starts on a continuation cell, so a backend always
    /// writes whole wide characters.
    public func changes(from previous: Grid?) -> [GridChange] {
        guard let previous, previous.size == size else {
            return (0..<height).map { y in GridChange(x: 0, y: y, cells: Array(cells[(y * width)..<((y + 1) * width)]))
            }
        }
        var runs: [GridChange] = []
        for y in 0..<height {
            let rowStart = y * width
            var x = 0
            while x < width {
                guard cells[rowStart + x] != previous.cells[rowStart + x] else {
                    x += 1
                    continue
                }
                var start = x
                if cells[rowStart + start].isContinuation, start > 0 { start -= 1 }
                var end = x + 1
                // Extend over changed cells; gaps of one or two equal cells are bridged,
                // since a cursor move costs more than rewriting them.
                while end < width {
                    if cells[rowStart + end] != previous.cells[rowStart + end] {
                        end += 1
                    } else if end + 2 < width, cells[rowStart + end + 1] != previous.cells[rowStart + end + 1] {
                        end += 2
                    } else if end + 3 < width, cells[rowStart + end + 2] != previous.cells[rowStart + end + 2] {
                        end += 3
                    } else {
                        break
                    }
                }
                // Never end between a wide character and its continuation.
                if end < width, cells[rowStart + end].isContinuation { end += 1 }
                if let last = runs.last, last.y == y, last.x + last.cells.count > start {
                    start = last.x + last.cells.count
                }
                if end > start {
                    runs.append(GridChange(x: start, y: y, cells: Array(cells[(rowStart + start)..<(rowStart + end)])))
                }
                x = end
            }
        }
        return runs
    }
}
