import UploadPlan

/// A small dialog of labelled inputs: adding or editing a field or header,
/// a staged file's part, or the target. Tab moves between inputs, Left and
/// Right cycle a choice, Enter saves, Escape cancels.
public struct EditorForm: Sendable, Hashable {
    /// What saving the form changes.
    public enum Purpose: Sendable, Hashable {
        case newEntry(FormEntry.Kind)
        case editEntry(index: Int)
        case editFile(id: Int)
        case target
        /// How images are prepared (`ImageForm`): for these staged files, or every image when none.
        case images(files: [Int])
        /// "Save as profile": the name of the new profile.
        case saveProfile
    }

    public enum Input: Sendable, Hashable {
        case text(TextInput)
        case choice(options: [String], selected: Int)
    }

    public struct Row: Sendable, Hashable {
        public var label: String
        public var input: Input
        /// A dim hint shown after the label, e.g. "key.path=value, comma-separated".
        public var hint: String

        public init(_ label: String, text: String, hint: String = "") {
            self.label = label
            input = .text(TextInput(text))
            self.hint = hint
        }

        public init(_ label: String, options: [String], selected: Int, hint: String = "") {
            self.label = label
            input = .choice(options: options, selected: selected)
            self.hint = hint
        }

        public var text: String {
            switch input {
            case .text(let t): return t.text
            case .choice(let options, let selected): return options[selected]
            }
        }
    }

    public var purpose: Purpose
    public var title: String
    public var rows: [Row]
    public var focus = 0
    /// Why the last save was refused, shown in red until the next key.
    public var error: String?
    /// A field or header form: its Value row is masked while the name looks
    /// secret (the rule of the Fields pane) or the entry was secret already,
    /// until Ctrl-R shows it (issue 37 #11).
    public var secretKind: FormEntry.Kind?
    public var wasSecret = false
    public var revealed = false

    /// Whether row `index` is drawn as dots.
    public func masks(_ index: Int) -> Bool {
        guard let kind = secretKind, !revealed, rows.indices.contains(index), rows[index].label == "Value" else {
            return false
        }
        return wasSecret || FormEntry.looksSecret(kind: kind, name: value("Name").trimmingSpaces)
    }

    public init(purpose: Purpose, title: String, rows: [Row]) {
        self.purpose = purpose
        self.title = title
        self.rows = rows
    }

    public func value(_ label: String) -> String {
        rows.first { $0.label == label }?.text ?? ""
    }

    /// Applies a key that edits or moves within the form. Enter and Escape
    /// (save and cancel) are the caller's.
    mutating func handle(_ key: Key) {
        error = nil
        switch key {
        case .control("r") where secretKind != nil:
            revealed.toggle()
        case .tab, .down:
            focus = (focus + 1) % rows.count
        case .backTab, .up:
            focus = (focus + rows.count - 1) % rows.count
        default:
            switch rows[focus].input {
            case .text(var input):
                _ = input.handle(key)
                rows[focus].input = .text(input)
            case .choice(let options, let selected):
                switch key {
                case .left, .character("h"):
                    rows[focus].input = .choice(
                        options: options, selected: (selected + options.count - 1) % options.count)
                case .right, .character("l"), .character(" "):
                    rows[focus].input = .choice(options: options, selected: (selected + 1) % options.count)
                default: break
                }
            }
        }
    }
}
