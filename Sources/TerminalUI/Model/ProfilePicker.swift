import UploadEngine

/// One table of the profiles file, as the picker lists it: values as
/// written, never expanded, so no `${TOKEN}` is shown resolved.
public struct ProfileSummary: Sendable, Hashable {
    public var name: String
    public var method: String?
    public var url: String?
    public var fields: [String]
    public var headers: [String]

    public init(name: String, method: String?, url: String?, fields: [String], headers: [String]) {
        self.name = name
        self.method = method
        self.url = url
        self.fields = fields
        self.headers = headers
    }
}

/// The profile picker (`O`): the profiles file's tables; Enter loads one
/// over the target and replaces the fields and headers.
public struct ProfilePicker: ScrollingList, Sendable, Hashable {
    public var items: [ProfileSummary]
    public var cursor = 0
    public var top = 0
    public var isLoading: Bool
    public var error: String?
    /// The file read, shown in the title line.
    public var path: String

    public init(items: [ProfileSummary] = [], isLoading: Bool = true, error: String? = nil, path: String = "") {
        self.items = items
        self.isLoading = isLoading
        self.error = error
        self.path = path
    }
}
