/// Turns a filename chosen by a client into one safe path component inside the receiver's directory.
///
/// The rule: keep only what follows the last `/` (so `../../etc/passwd` is saved as `passwd`), replace
/// `\`, NUL and other control characters with `_`, trim spaces, drop leading dots (no hidden files, no
/// `..`), and fall back to `upload` when nothing is left. Names are cut to 200 UTF-8 bytes, keeping the
/// extension, which leaves room for the `-N` suffix inside the 255-byte limit of Linux file systems.
enum FileNameSanitizer {
    static let fallbackName = "upload"
    static let maxBytes = 200

    static func sanitize(_ filename: String?) -> String {
        guard let filename else { return fallbackName }
        let base = filename.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in base.unicodeScalars {
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            scalars.append(isControl || scalar == "\\" ? "_" : scalar)
        }
        var name = Substring(String(scalars))
        while let first = name.first, first == "." || first.isWhitespace { name = name.dropFirst() }
        while let last = name.last, last.isWhitespace { name = name.dropLast() }
        guard !name.isEmpty else { return fallbackName }
        return truncated(String(name))
    }

    /// `photo.jpg` -> `photo-1.jpg`, `README` -> `README-1`; `n == 0` is the name itself.
    static func numbered(_ name: String, _ n: Int) -> String {
        guard n > 0 else { return name }
        let (stem, ext) = split(name)
        return "\(stem)-\(n)\(ext)"
    }

    /// Splits off the extension (with its dot) when the name has one that is not the whole name.
    static func split(_ name: String) -> (stem: Substring, ext: Substring) {
        if let dot = name.lastIndex(of: "."), dot > name.startIndex {
            return (name[..<dot], name[dot...])
        }
        return (name[...], "")
    }

    private static func truncated(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var (stem, ext) = split(name)
        if ext.utf8.count > 20 { (stem, ext) = (name[...], "") }
        let budget = maxBytes - ext.utf8.count
        var kept = ""
        for character in stem {
            if kept.utf8.count + character.utf8.count > budget { break }
            kept.append(character)
        }
        return kept.isEmpty ? fallbackName + ext : kept + ext
    }
}
