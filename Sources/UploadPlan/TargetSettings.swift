import FormData
import UploadEngine

/// Target settings as one source gives them: a profile, the command line or
/// the UI's `t` dialog. What is not in `options` is "not given here". Every
/// value was checked by its `TargetOption` when it was made.
public struct TargetSettings: Sendable, Hashable {
    public var url: String?
    /// The options given, by key.
    public private(set) var options: [String: TargetOption.Setting] = [:]
    /// Text fields and headers, in the order they are sent.
    public var entries: [FormEntry]

    public init(url: String? = nil, entries: [FormEntry] = []) {
        self.url = url
        self.entries = entries
    }

    /// Gives an option (a later one of the same key replaces it).
    public mutating func set(_ setting: TargetOption.Setting) {
        options[setting.key] = setting
    }

    /// Checks `values` with the option `key` and gives it.
    public mutating func set(_ key: String, _ values: String...) throws(TargetValueError) {
        guard let option = TargetOption.named(key) else { throw TargetValueError("\(key): no such setting") }
        set(try option.setting(values))
    }

    public func has(_ key: String) -> Bool { options[key] != nil }

    /// The one precedence rule: what `self` gives wins over `lower` (the
    /// command line over the profile), option by option. An entry of `self`
    /// replaces `lower`'s of the same kind and name (header names in any
    /// case); `lower`'s other entries go first, in their order.
    public func over(_ lower: TargetSettings) -> TargetSettings {
        var merged = TargetSettings(url: url ?? lower.url)
        merged.options = options.merging(lower.options) { mine, _ in mine }
        merged.entries = lower.entries.filter { !replaces($0) } + entries
        return merged
    }

    /// Whether one of these entries takes the place of `entry`.
    func replaces(_ entry: FormEntry) -> Bool {
        entries.contains { $0.kind == entry.kind && $0.sameName(as: entry) }
    }

    /// `target` with every value given here put in; entries are not part of a target.
    public func applied(to target: Target) -> Target {
        var target = target
        if let url { target.url = url }
        for option in TargetOption.all { options[option.key]?.apply(&target) }
        // Metadata alone prepares no image: the files go as they are.
        if target.images?.changesImages == false { target.images = nil }
        return target
    }

    /// The target these settings describe, with defaults for what is not given.
    public var target: Target { applied(to: Target()) }
}
