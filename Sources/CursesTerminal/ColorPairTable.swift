import CNcursesw
import TerminalUI

/// Colour pairs, allocated the first time a (foreground, background)
/// combination is drawn. With only 9 colours there are at most 81 pairs.
struct ColorPairTable {
    /// False when the terminal has no colours; every cell then uses pair 0.
    let enabled: Bool
    /// True when use_default_colors() worked, so -1 means the terminal's own colour.
    let defaultColors: Bool
    private var pairs: [ColorKey: Int16] = [:]
    private var nextPair: Int32 = 1

    private struct ColorKey: Hashable {
        var foreground: Color
        var background: Color
    }

    init(enabled: Bool, defaultColors: Bool) {
        self.enabled = enabled
        self.defaultColors = defaultColors
    }

    /// The pair number for the style's colours, allocating it if needed.
    /// Pair 0 (the terminal's defaults) is used when none is left.
    mutating func pair(foreground: Color, background: Color) -> Int16 {
        guard enabled, foreground != .default || background != .default else { return 0 }
        let key = ColorKey(foreground: foreground, background: background)
        if let known = pairs[key] { return known }
        guard nextPair < min(hoist_COLOR_PAIRS(), Int32(Int16.max)) else { return 0 }
        let number = Int16(nextPair)
        let colors = (cursesColor(foreground, isForeground: true), cursesColor(background, isForeground: false))
        guard init_pair(number, colors.0, colors.1) == hoist_OK() else { return 0 }
        nextPair += 1
        pairs[key] = number
        return number
    }

    private func cursesColor(_ color: Color, isForeground: Bool) -> Int16 {
        switch color {
        case .default:
            // Without use_default_colors, approximate the usual light-on-dark terminal.
            return defaultColors ? -1 : Int16(isForeground ? COLOR_WHITE : COLOR_BLACK)
        case .black: return Int16(COLOR_BLACK)
        case .red: return Int16(COLOR_RED)
        case .green: return Int16(COLOR_GREEN)
        case .yellow: return Int16(COLOR_YELLOW)
        case .blue: return Int16(COLOR_BLUE)
        case .magenta: return Int16(COLOR_MAGENTA)
        case .cyan: return Int16(COLOR_CYAN)
        case .white: return Int16(COLOR_WHITE)
        }
    }
}
