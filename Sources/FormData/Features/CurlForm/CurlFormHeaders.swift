import WireRules

/// The custom headers of a form part, by curl's rules: the grammar of a
/// `headers=@file` (curl's `read_field_headers`) and the `Name: value` shape
/// Hoist needs from every line, whether written inline or read from a file.
enum CurlFormHeaders {
    /// A headers file larger than this is refused, not read.
    static let maxFileBytes = 1 << 20

    /// One header line and where it came from, for messages.
    struct Line {
        var bytes: [UInt8]
        /// `nil` for `headers=...`; the file and line for `headers=@file`.
        var file: (path: String, line: Int)?
    }

    /// Why a header line cannot be sent. The scanner puts the `-F` argument around `reason`.
    struct Refusal: Error {
        var reason: String
    }

    /// Why the default reader could not read a headers file.
    struct UnreadableFile: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads a headers file whole (at most `maxFileBytes`), the default for `CurlFormArgument.parse`.
    static func readFile(_ path: String) throws -> [UInt8] {
        do {
            return try SmallFile.read(path, limit: maxFileBytes)
        } catch {
            if case .tooLarge = error.reason { throw UnreadableFile(description: "\(error); is it a headers file?") }
            throw UnreadableFile(description: error.description)
        }
    }

    /// Header lines from a headers file, by curl's rules: `\r` is dropped
    /// wherever it is; a line that starts with `#` is a comment; a line that
    /// starts with white space continues the previous header (its leading
    /// white space kept, the line break dropped); blank lines are ignored;
    /// trailing white space is stripped.
    ///
    /// curl truncates a header at 998 bytes with a warning, and a NUL byte
    /// silently ends a header; Hoist refuses both, and bytes that are not UTF-8.
    static func lines(inFile contents: [UInt8], path: String) throws(Refusal) -> [Line] {
        var lines: [Line] = []
        var header: [UInt8] = []
        var headerLine = 1
        var column = 0
        var inComment = false
        var lineNumber = 1

        func flush() throws(Refusal) {
            let stripped = CurlByte.trimmedTrailingSpaces(header)
            header = []
            guard !stripped.isEmpty else { return }
            guard stripped.count <= 998 else {
                throw Refusal(
                    reason:
                        "headers file \(TerminalText.quoted(path)), line \(headerLine): header is longer than 998 bytes"
                        + " (curl would truncate it)")
            }
            lines.append(Line(bytes: stripped, file: (path, headerLine)))
        }

        for character in contents {
            if column == 0 && !CurlByte.isSpace(character) { try flush() }
            switch character {
            case CurlByte.carriageReturn:
                continue
            case CurlByte.newline:
                column = 0
                inComment = false
                lineNumber += 1
                continue
            case CurlByte.hash where column == 0:
                inComment = true
            case 0:
                throw Refusal(
                    reason: "headers file \(TerminalText.quoted(path)), line \(lineNumber): contains a NUL byte")
            default:
                break
            }
            column += 1
            if !inComment {
                if header.isEmpty { headerLine = lineNumber }
                header.append(character)
            }
        }
        try flush()
        return lines
    }

    /// A header line as a `HeaderField`. curl sends the line verbatim; Hoist
    /// writes `Name: value`, so the line must have that shape. Optional white
    /// space around the value is not part of it (RFC 9110 section 5.5).
    static func field(_ line: Line) throws(Refusal) -> HeaderField {
        let origin = line.file.map { " (headers file \(TerminalText.quoted($0.path)), line \($0.line))" } ?? ""
        guard let text = String(validating: line.bytes, as: UTF8.self) else {
            throw Refusal(reason: "header\(origin) is not valid UTF-8")
        }
        let shown = TerminalText.quoted(text)
        if line.bytes.contains(where: HeaderSyntax.isForbiddenInValue) {
            throw Refusal(reason: "header \(shown)\(origin) contains CR, LF or NUL; a header must be one line")
        }
        guard let colon = line.bytes.firstIndex(of: CurlByte.colon) else {
            throw Refusal(reason: "header \(shown)\(origin) is not of the form 'Name: value'")
        }
        let name = String(decoding: line.bytes[..<colon], as: UTF8.self)
        var value = line.bytes[(colon + 1)...]
        while let first = value.first, first == CurlByte.space || first == CurlByte.tab { value = value.dropFirst() }
        while let last = value.last, last == CurlByte.space || last == CurlByte.tab { value = value.dropLast() }
        guard HeaderSyntax.isToken(name) else {
            throw Refusal(
                reason: "header \(shown)\(origin) has an invalid name \(TerminalText.quoted(name)):"
                    + " use letters, digits and !#$%&'*+-.^_`|~ only")
        }
        if name.lowercased() == "content-disposition" {
            // curl would send it in place of its own; Hoist builds it from the name and filename.
            throw Refusal(
                reason: "header \(shown)\(origin) would replace the part's Content-Disposition, which Hoist builds"
                    + " from the field name and filename=; set those instead")
        }
        return HeaderField(name, String(decoding: value, as: UTF8.self))
    }
}

/// A headers file, as `-H @file` reads it: the rules of curl's `headers=@file`
/// (`#` comments, folded lines, blank lines skipped), each line `Name: value`.
public enum HeaderFile {
    public struct Unusable: Error, CustomStringConvertible {
        public let description: String
    }

    public static func read(_ path: String) throws(Unusable) -> [HeaderField] {
        do {
            let lines = try CurlFormHeaders.lines(inFile: try CurlFormHeaders.readFile(path), path: path)
            return try lines.map { line throws(CurlFormHeaders.Refusal) in try CurlFormHeaders.field(line) }
        } catch let refusal as CurlFormHeaders.Refusal {
            throw Unusable(description: refusal.reason)
        } catch {
            throw Unusable(description: "\(error)")
        }
    }
}
