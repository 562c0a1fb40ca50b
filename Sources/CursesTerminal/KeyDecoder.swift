import CNcursesw
import TerminalUI

/// What one `get_wch` result means to the loop.
enum DecodedInput: Sendable, Hashable {
    case key(Key)
    /// KEY_MOUSE: the event itself still has to be fetched with getmouse().
    case mouse
    /// KEY_RESIZE.
    case resize
    /// Nothing the UI uses: an unmapped function key or a stray control code.
    case ignored
}

/// Maps `get_wch` and `getmouse` results to keys. Pure, so it can be tested
/// without a terminal.
enum KeyDecoder {
    /// `status` is what get_wch returned (OK or KEY_CODE_YES), `code` the
    /// value it stored.
    static func decode(status: Int32, code: UInt32) -> DecodedInput {
        if status == hoist_KEY_CODE_YES() {
            return decodeKeyCode(Int32(truncatingIfNeeded: code))
        }
        guard status == hoist_OK() else { return .ignored }
        return decodeCharacter(code)
    }

    /// A wheel notch or a left-button press at a cell; nil for anything else.
    static func decodeMouse(buttons: mmask_t, x: Int32, y: Int32) -> Key? {
        guard x >= 0, y >= 0 else { return nil }
        let (column, row) = (Int(x), Int(y))
        if buttons & hoist_BUTTON4_PRESSED() != 0 {
            return .wheel(up: true, x: column, y: row)
        }
        let wheelDown = hoist_BUTTON5_PRESSED()
        if wheelDown != 0, buttons & wheelDown != 0 {
            return .wheel(up: false, x: column, y: row)
        }
        if buttons & (hoist_BUTTON1_PRESSED() | hoist_BUTTON1_CLICKED()) != 0 {
            return .click(x: column, y: row)
        }
        return nil
    }

    private static func decodeKeyCode(_ code: Int32) -> DecodedInput {
        switch code {
        case KEY_UP, KEY_SR: return .key(.up)
        case KEY_DOWN, KEY_SF: return .key(.down)
        case KEY_LEFT, KEY_SLEFT: return .key(.left)
        case KEY_RIGHT, KEY_SRIGHT: return .key(.right)
        case KEY_HOME, KEY_SHOME: return .key(.home)
        case KEY_END, KEY_SEND: return .key(.end)
        case KEY_PPAGE: return .key(.pageUp)
        case KEY_NPAGE: return .key(.pageDown)
        case KEY_BTAB: return .key(.backTab)
        case KEY_BACKSPACE: return .key(.backspace)
        case KEY_DC: return .key(.delete)
        case KEY_ENTER: return .key(.enter)
        case KEY_MOUSE: return .mouse
        case hoist_KEY_RESIZE(): return .resize
        case (KEY_F0 + 1)...(KEY_F0 + 63): return .key(.function(Int(code - KEY_F0)))
        default: return .ignored
        }
    }

    private static func decodeCharacter(_ code: UInt32) -> DecodedInput {
        switch code {
        // Raw mode with nonl(): Enter arrives as CR, Ctrl-J as LF; both are Enter.
        case 10, 13: return .key(.enter)
        case 9: return .key(.tab)
        case 27: return .key(.escape)
        // Terminals send DEL or ^H for Backspace, depending on their settings.
        case 8, 127: return .key(.backspace)
        case 1...26: return .key(.control(Character(Unicode.Scalar(UInt8(96 + code)))))
        // NUL (Ctrl-Space), ^\ ^] ^^ ^_ and the C1 controls have no meaning here.
        case 0, 28...31, 0x80...0x9F: return .ignored
        default:
            guard let scalar = Unicode.Scalar(code) else { return .ignored }
            return .key(.character(Character(scalar)))
        }
    }
}
