import FoundationEssentials
import Glibc
import UploadPlan

/// Files matching a shell glob, sorted; directories are skipped. A `**`
/// component walks the folder before it recursively (`photos/**`,
/// `photos/**/*.jpg`), each file named by its path under that folder.
enum Glob {
    struct Match: Equatable {
        var path: String
        /// The path under the folder a `**` walked; nil for a plain glob's match.
        var relative: String?

        /// The file as a part or body: named by its relative path unless `flat`.
        func choice(field: String, flat: Bool) -> FileChoice {
            FileChoice(path: path, field: field, filename: flat ? nil : relative)
        }
    }

    static func files(matching pattern: String, folders: FolderFiles.Options = .init()) throws -> [Match] {
        let components = pattern.split(separator: "/", omittingEmptySubsequences: false)
        if let star = components.firstIndex(of: "**") {
            return try walk(
                components[..<star].joined(separator: "/"), pattern: pattern,
                rest: components[(star + 1)...].filter { !$0.isEmpty && $0 != "**" }.map(String.init), folders: folders)
        }
        if let matches = inOneFolder(pattern) { return matches }
        var result = glob_t()
        defer { globfree(&result) }
        // GLOB_MARK ends directories (and links to them) with a slash.
        let status = glob(pattern, GLOB_MARK, nil, &result)
        if status == GLOB_NOMATCH { return [] }
        guard status == 0 else { throw BadInput("cannot expand \(String(reflecting: pattern))") }
        var paths: [String] = []
        paths.reserveCapacity(Int(result.gl_pathc))
        for index in 0..<Int(result.gl_pathc) {
            guard let pointer = result.gl_pathv[index] else { continue }
            let path = String(cString: pointer)
            if path.utf8.last != UInt8(ascii: "/") { paths.append(path) }
        }
        return paths.sorted().map { Match(path: $0) }
    }

    /// The common pattern, wildcards in its last component only (`scans/*.jpg`):
    /// one pass over the folder, each entry typed by `readdir`. glob(3)'s
    /// GLOB_MARK stat'ed every match instead (1,000 matches: about 1 ms before
    /// the first upload). nil for any other pattern. Matches as glob does: a
    /// leading dot only explicitly, links followed, unreadable folder empty.
    private static func inOneFolder(_ pattern: String) -> [Match]? {
        let slash = pattern.lastIndex(of: "/")
        let prefix = slash.map { String(pattern[...$0]) } ?? ""
        let name = slash.map { String(pattern[pattern.index(after: $0)...]) } ?? pattern
        func isMagic(_ text: String) -> Bool { text.contains { "*?[\\".contains($0) } }
        guard isMagic(name), !isMagic(prefix) else { return nil }
        guard let stream = opendir(prefix.isEmpty ? "." : prefix) else { return [] }
        defer { closedir(stream) }
        var paths: [String] = []
        while let entry = readdir(stream) {
            let matches = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                fnmatch(name, raw.baseAddress!.assumingMemoryBound(to: CChar.self), FNM_PERIOD) == 0
            }
            guard matches else { continue }
            let path = prefix + FolderFiles.name(of: entry)
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR):
                continue
            case Int32(DT_LNK), Int32(DT_UNKNOWN):
                if FolderFiles.type(of: path, follow: true) == Int32(DT_DIR) { continue }
            default:
                break
            }
            paths.append(path)
        }
        return paths.sorted().map { Match(path: $0) }
    }

    /// The files under `base` whose last path components match `rest` (all of them when it is empty).
    private static func walk(_ base: String, pattern: String, rest: [String], folders: FolderFiles.Options) throws
        -> [Match]
    {
        let folder = base.isEmpty ? "." : base
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw BadInput("\(pattern): \(folder) is not a folder")
        }
        let walk = FolderFiles.walk(folder, options: folders)
        if let leftOut = walk.leftOut {
            // Name the flag that takes what was left out.
            let flags =
                (walk.skippedHidden > 0 ? ["--hidden"] : []) + (walk.skippedSymlinks > 0 ? ["--follow-symlinks"] : [])
            let one = walk.skippedHidden + walk.skippedSymlinks == 1
            let hint = flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")) to take \(one ? "it" : "them"))"
            printError("hoist: \(pattern): \(leftOut)\(hint)")
        }
        return walk.files.compactMap { file in
            let names = file.relative.split(separator: "/")
            guard names.count >= rest.count else { return nil }
            for (name, glob) in zip(names.suffix(rest.count), rest) where fnmatch(glob, String(name), 0) != 0 {
                return nil
            }
            return Match(path: base.isEmpty ? file.relative : file.path, relative: file.relative)
        }
    }
}
