/// One `-F` or `--form-string` argument, parsed the way curl parses it.
///
/// The grammar is curl's (src/tool_formparse.c: `formparse`,
/// `get_param_part`, `get_param_word`, `read_field_headers`), checked
/// against curl 7.88.1:
///
/// - `name=value` is a text field, `name=@path` a file upload (the filename
///   is the path's base name), `name=<path` the file's contents as a text
///   field, `@-` and `<-` read standard input (`@-` sends filename `-`).
/// - After the value, `;`-separated modifiers: `type=`, `filename=`,
///   `headers=` (repeatable; `headers=@file` reads header lines from a file)
///   and `encoder=` (refused: Hoist sends no Content-Transfer-Encoding).
///   Modifier names are matched case-insensitively. Unknown modifiers are
///   skipped with a warning, as in curl.
/// - A value, filename, header or header-file path may be double-quoted;
///   inside quotes only `\"` and `\\` are escapes, and `;` and `,` lose
///   their meaning. `type=` is never unquoted (curl keeps the quotes).
///
/// Where Hoist deliberately differs from curl, the parser refuses the input
/// instead of sending something curl would send: several files in one `@`
/// field and `(`…`)` groups (both multipart/mixed), `encoder=`, a missing or
/// unreadable headers file (curl warns and goes on), header lines curl would
/// truncate or send malformed.
public struct CurlFormArgument: Sendable, Hashable {
    /// Where the part's bytes come from.
    public enum Source: Sendable, Hashable {
        /// `name=value`
        case text(String)
        /// `name=@path`
        case file(path: String)
        /// `name=<path`
        case fileAsText(path: String)
        /// `name=@-`
        case standardInput
        /// `name=<-`
        case standardInputAsText
    }

    /// The field name: everything before the first `=`. May be empty
    /// (`-F =value`); see `part()`.
    public var name: String
    public var source: Source
    /// The `type=` modifier, exactly as curl keeps it (parameters such as
    /// `; charset=utf-8` included).
    public var contentType: String?
    /// The `filename=` modifier.
    public var filename: String?
    /// The `headers=` modifiers and the lines of `headers=@file`, in order.
    public var headers: [HeaderField]
    /// What curl would have warned about (an unknown modifier, data after a
    /// closing quote, `filename=` on a `<file` field ...). The argument is
    /// still usable; print these to the user the way curl does.
    public var warnings: [String]

    public init(
        name: String,
        source: Source,
        contentType: String? = nil,
        filename: String? = nil,
        headers: [HeaderField] = [],
        warnings: [String] = []
    ) {
        self.name = name
        self.source = source
        self.contentType = contentType
        self.filename = filename
        self.headers = headers
        self.warnings = warnings
    }

    /// The FormData part this argument sends.
    ///
    /// Built with `Part`'s constructors, so content-type and filename
    /// defaults are FormData's: a part with a filename gets a type from the
    /// MIME table (or application/octet-stream), a part without one gets none
    /// unless `type=` is given. Standard input becomes a stream part, which
    /// makes the request chunked.
    ///
    /// curl omits the `name` parameter when the name is empty; `Part` always
    /// has a name, so Hoist sends `name=""`.
    public func part() -> Part {
        switch source {
        case .text(let value):
            var part = Part.text(name, value, headers: headers)
            part.filename = filename
            part.contentType = contentType
            return part
        case .file(let path):
            return .file(name, path: path, filename: filename, contentType: contentType, headers: headers)
        case .fileAsText(let path):
            return .fileAsText(name, path: path, contentType: contentType, headers: headers)
        case .standardInput:
            // curl: `if(!filename) filename = "-";` for TOOLMIME_STDIN.
            return .stream(
                name, from: .standardInput, filename: filename ?? "-", contentType: contentType, headers: headers)
        case .standardInputAsText:
            return .stream(name, from: .standardInput, filename: nil, contentType: contentType, headers: headers)
        }
    }
}
