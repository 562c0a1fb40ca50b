/// Turns a filename chosen by a client into one safe path component inside the receiver's directory.
///
/// The rule, applied per Unicode scalar (a `/` followed by a combining mark is one Swift `Character`,
/// which a split by characters would keep): keep only what follows the last `/` (so
/// `../../etc/passwd` is saved as `passwd`), replace `\`, NUL and other control characters with `_`,
/// drop leading dots, spaces and combining marks (no hidden files, no `..`) and trailing spaces, and
/// fall back to `upload` when nothing is left. Names are cut to 200 UTF-8 bytes, keeping the
/// extension, which leaves room for the `-N` suffix inside the 255-byte limit of Linux file systems.
enum FileNameSanitizer {
    static let fallbackName = "upload"
    static let maxBytes = 200

    static func sanitize(_ filename: String?) -> String {
        guard let filename else { return fallbackName }
        let base = filename.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).last ?? []
        var scalars = base.map { scalar -> Unicode.Scalar in
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
            return isControl || scalar == "\\" ? "_" : scalar
        }[...]
        while let first = scalars.first, first == "." || first.properties.isWhitespace || isMark(first) {
            scalars = scalars.dropFirst()
        }
        while let last = scalars.last, last.properties.isWhitespace { scalars = scalars.dropLast() }
        guard !scalars.isEmpty else { return fallbackName }
        var name = String.UnicodeScalarView()
        name.append(contentsOf: scalars)
        return truncated(String(name))
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
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
