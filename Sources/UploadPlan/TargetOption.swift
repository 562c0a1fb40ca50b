import FormData
import UploadEngine

/// One target setting, declared once, as rclone's `fs.Option` is: its
/// profile key, its command-line flag and help, its validator, how it is
/// written back, its row in the UI's `t` dialog, and where it goes in a
/// `Target`. The command line, profiles (read and written), the dialog,
/// merging and argv's tokenizer all read `TargetOption.all`; a new setting
/// is one row there.
public struct TargetOption: Sendable {
    /// Which targets a setting means something for.
    public enum Scope: Sendable, Hashable {
        /// `objects`: S3 and the kinds of `TargetKinds` (GCS).
        case every, tus, s3, objects, images
    }

    /// The TOML type a profile gives the value in (and the writer writes).
    public enum ProfileType: Sendable, Hashable {
        case text
        case integer
        /// A number of seconds, whole or not.
        case seconds
        /// `"8M"` or a number of bytes.
        case size
        case boolean
        /// An array of strings; each item is one value.
        case list
    }

    /// How the command line spells it.
    public struct Flag: Sendable, Hashable {
        /// `--chunk-size`.
        public var long: String
        public var short: Character?
        /// What the help shows for the value; `nil` for a switch, which takes none.
        public var valueName: String?
        /// The value a switch stands for (`--tus` is `transfer = "tus"`).
        public var switchValue: String

        public static func value(_ long: String, short: Character? = nil, _ valueName: String) -> Flag {
            Flag(long: long, short: short, valueName: valueName, switchValue: "")
        }

        public static func `switch`(_ long: String, means value: String) -> Flag {
            Flag(long: long, short: nil, valueName: nil, switchValue: value)
        }

        public var takesValue: Bool { valueName != nil }
    }

    /// The option's row in the `t` dialog.
    public struct Row: Sendable, Hashable {
        public var label: String
        public var hint: String?
        /// A row chosen with ←/→ from these values, not typed.
        public var choices: [String]?
    }

    /// The profile key, `chunk_size`; also the option's name in messages.
    public let key: String
    public let flag: Flag?
    public let help: String
    public let scope: Scope
    public let profileType: ProfileType
    public let row: Row?
    /// Written to a saved profile even when it has the default value.
    public let writesDefault: Bool
    private let parse: @Sendable ([String]) throws(TargetValueError) -> Setting
    private let current: @Sendable (Target) -> [String]?
    private let isDefault: @Sendable (Target) -> Bool
    private let reset: @Sendable (inout Target) -> Void

    /// Checks `values` (one, or each item of a list) and gives what they set.
    public func setting(_ values: [String]) throws(TargetValueError) -> Setting {
        try parse(values)
    }

    public func setting(_ value: String) throws(TargetValueError) -> Setting {
        try parse(profileType == .list ? Self.items(value) : [value])
    }

    /// The value in `target` as text `setting` reads back; `nil` for none.
    public func values(in target: Target) -> [String]? {
        current(target)
    }

    /// What a saved profile writes: the value, unless it is the default and not `writesDefault`.
    public func written(in target: Target) -> [String]? {
        writesDefault || !isDefault(target) ? current(target) : nil
    }

    /// The dialog's text for the value in `target`: a list's items joined by commas, "" for none.
    public func text(in target: Target) -> String {
        (current(target) ?? []).joined(separator: ", ")
    }

    /// Puts the default back, as an emptied dialog row does.
    public func resetting(_ target: Target) -> Target {
        var target = target
        reset(&target)
        return target
    }

    /// A checked value of one option, ready to go into a target.
    public struct Setting: Sendable, Hashable {
        public let key: String
        /// As written back: `8M`, `30`, `true`.
        public let values: [String]
        let apply: @Sendable (inout Target) -> Void

        public func apply(to target: inout Target) { apply(&target) }

        public static func == (left: Setting, right: Setting) -> Bool {
            left.key == right.key && left.values == right.values
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(key)
            hasher.combine(values)
        }
    }

    // MARK: - Making rows

    /// A setting stored at `path`, whose default is `Target()`'s.
    init<Value: Equatable & Sendable>(
        _ key: String, flag: Flag?, help: String, scope: Scope = .every, type: ProfileType = .text,
        row: Row? = nil, writesDefault: Bool = false,
        parse: @escaping @Sendable (String) throws(TargetValueError) -> Value,
        text: @escaping @Sendable (Value) -> String,
        at path: WritableKeyPath<Target, Value> & Sendable
    ) {
        let fallback = Target()[keyPath: path]
        self.init(
            key, flag: flag, help: help, scope: scope, type: type, row: row, writesDefault: writesDefault,
            parse: { items throws(TargetValueError) in try parse(items.last ?? "") },
            current: { [text($0[keyPath: path])] }, isDefault: { $0[keyPath: path] == fallback },
            set: { target, value in target[keyPath: path] = value ?? fallback }, text: { [text($0)] })
    }

    /// A setting stored at an optional `path`, `nil` by default.
    init<Value: Equatable & Sendable>(
        _ key: String, flag: Flag?, help: String, scope: Scope = .every, type: ProfileType = .text,
        row: Row? = nil, parse: @escaping @Sendable (String) throws(TargetValueError) -> Value,
        text: @escaping @Sendable (Value) -> String, optional path: WritableKeyPath<Target, Value?> & Sendable
    ) {
        self.init(
            key, flag: flag, help: help, scope: scope, type: type, row: row, writesDefault: false,
            parse: { items throws(TargetValueError) in try parse(items.last ?? "") },
            current: { target in target[keyPath: path].map { [text($0)] } }, isDefault: { $0[keyPath: path] == nil },
            set: { target, value in target[keyPath: path] = value }, text: { [text($0)] })
    }

    /// A list: each item checked alone, the whole list stored at `path`.
    init<Item: Equatable & Sendable>(
        _ key: String, flag: Flag?, help: String, row: Row? = nil,
        parse: @escaping @Sendable (String) throws(TargetValueError) -> Item,
        text: @escaping @Sendable (Item) -> String, list path: WritableKeyPath<Target, [Item]> & Sendable
    ) {
        self.init(
            key, flag: flag, help: help, scope: .every, type: .list, row: row, writesDefault: false,
            parse: { items throws(TargetValueError) in
                var parsed: [Item] = []
                for item in items { parsed.append(try parse(item)) }
                return parsed
            },
            current: { target in target[keyPath: path].isEmpty ? nil : target[keyPath: path].map(text) },
            isDefault: { $0[keyPath: path].isEmpty },
            set: { target, value in target[keyPath: path] = value ?? [] }, text: { $0.map(text) })
    }

    private init<Value: Sendable>(
        _ key: String, flag: Flag?, help: String, scope: Scope, type: ProfileType, row: Row?, writesDefault: Bool,
        parse: @escaping @Sendable ([String]) throws(TargetValueError) -> Value,
        current: @escaping @Sendable (Target) -> [String]?, isDefault: @escaping @Sendable (Target) -> Bool,
        set: @escaping @Sendable (inout Target, Value?) -> Void, text: @escaping @Sendable (Value) -> [String]
    ) {
        self.key = key
        self.flag = flag
        self.help = help
        self.scope = scope
        self.profileType = type
        self.row = row
        self.writesDefault = writesDefault
        self.parse = { items throws(TargetValueError) in
            let value = try parse(items)
            return Setting(key: key, values: text(value), apply: { set(&$0, value) })
        }
        self.current = current
        self.isDefault = isDefault
        self.reset = { set(&$0, nil) }
    }

    /// `a=1, b=2`: a list as the dialog shows it, split again.
    static func items(_ text: String) -> [String] {
        text.split(separator: ",").map { TargetValue.trimmed($0) }.filter { !$0.isEmpty }
    }
}

extension TargetOption {
    public static func named(_ key: String) -> TargetOption? { byKey[key] }

    /// The option a command-line flag spells (`--chunk-size`, `-X`).
    public static func flagged(_ long: String) -> TargetOption? { byFlag[long] }

    private static let byKey = Dictionary(uniqueKeysWithValues: all.map { ($0.key, $0) })
    private static let byFlag = Dictionary(uniqueKeysWithValues: all.compactMap { o in o.flag.map { ($0.long, o) } })

    /// The options of the `t` dialog, in its order.
    public static let dialogRows = all.filter { $0.row != nil }
}
