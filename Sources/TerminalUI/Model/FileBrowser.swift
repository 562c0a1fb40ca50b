#if canImport(Glibc)
    import Glibc
#endif

/// One entry of a directory listing, read by the app and handed in as a message.
public struct DirectoryEntry: Sendable, Hashable {
    public var name: String
    public var isDirectory: Bool
    public var size: Int64

    public init(name: String, isDirectory: Bool, size: Int64 = 0) {
        self.name = name
        self.isDirectory = isDirectory
        self.size = size
    }

    public var isHidden: Bool { name.hasPrefix(".") && name != ".." }
}

/// The `a` overlay: browse directories, mark files, filter by glob, and
/// stage the marked files (or the one under the cursor).
public struct FileBrowser: Sendable, Hashable {
    public var directory: String
    /// The listing as read, sorted directories first; nil while it is being read.
    public var entries: [DirectoryEntry]?
    public var error: String?
    public var cursor = 0
    public var scroll = 0
    /// Full paths of marked files; kept across directories.
    public var marked: [String] = []
    public var showHidden = false
    /// A glob such as `*.jpg`; directories always show.
    public var glob = TextInput()
    public var isEditingGlob = false

    public init(directory: String) {
        self.directory = directory
    }

    /// What the list shows: ".." (except at "/"), then directories, then files.
    public var visibleEntries: [DirectoryEntry] {
        let pattern = glob.text
        let listed = (entries ?? []).filter { entry in
            if entry.isHidden && !showHidden { return false }
            return entry.isDirectory || pattern.isEmpty || FileBrowser.matches(entry.name, glob: pattern)
        }
        return (directory == "/" ? [] : [DirectoryEntry(name: "..", isDirectory: true)]) + listed
    }

    public func path(of entry: DirectoryEntry) -> String {
        if entry.name == ".." { return FileBrowser.parent(of: directory) }
        return directory == "/" ? "/" + entry.name : directory + "/" + entry.name
    }

    public static func parent(of directory: String) -> String {
        guard let slash = directory.lastIndex(of: "/"), directory != "/" else { return "/" }
        return slash == directory.startIndex ? "/" : String(directory[..<slash])
    }

    /// Shell-style glob (`*`, `?`, `[...]`), as fnmatch reads it.
    public static func matches(_ name: String, glob: String) -> Bool {
        fnmatch(glob, name, 0) == 0
    }

    mutating func setListing(_ listing: [DirectoryEntry]) {
        entries = listing.sorted { a, b in
            a.isDirectory != b.isDirectory ? a.isDirectory : a.name.localizedStandardLess(b.name)
        }
        error = nil
        cursor = min(cursor, max(0, visibleEntries.count - 1))
    }
}

extension String {
    /// Case-insensitive, numbers compared by value ("img2" < "img10"), without Foundation.
    func localizedStandardLess(_ other: String) -> Bool {
        let a = Array(lowercased()), b = Array(other.lowercased())
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i].isNumber, b[j].isNumber {
                var x = "", y = ""
                while i < a.count, a[i].isNumber {
                    x.append(a[i])
                    i += 1
                }
                while j < b.count, b[j].isNumber {
                    y.append(b[j])
                    j += 1
                }
                if x.count != y.count { return x.count < y.count }
                if x != y { return x < y }
            } else {
                if a[i] != b[j] { return a[i] < b[j] }
                i += 1
                j += 1
            }
        }
        return a.count - i < b.count - j
    }
}
