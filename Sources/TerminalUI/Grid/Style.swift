/// The eight ANSI colours plus the terminal's own default, which is all
/// the UI uses so it reads on any palette, light or dark.
public enum Color: UInt8, Sendable, Hashable, CaseIterable {
    case `default`, black, red, green, yellow, blue, magenta, cyan, white
}

/// How a cell is drawn. Backends map it to their own attributes.
public struct Style: Sendable, Hashable {
    public var foreground: Color
    public var background: Color
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool

    public init(
        foreground: Color = .default, background: Color = .default,
        bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    public static let plain = Style()

    public static func fg(_ color: Color) -> Style { Style(foreground: color) }

    public var bolded: Style {
        var s = self
        s.bold = true
        return s
    }
    public var dimmed: Style {
        var s = self
        s.dim = true
        return s
    }
    public var reversed: Style {
        var s = self
        s.reverse = true
        return s
    }
    public var underlined: Style {
        var s = self
        s.underline = true
        return s
    }
}
