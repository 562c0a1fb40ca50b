import Glibc

extension CurlFormArgument {
    /// Parses `-F` syntax, reading `headers=@file` from disk.
    public static func parse(_ argument: String) throws(CurlFormSyntaxError) -> CurlFormArgument {
        try parse(argument, headerFileReader: readHeaderFile)
    }

    /// Parses `-F` syntax. `headerFileReader` returns the bytes of a
    /// `headers=@file` (injected so tests need no disk); what it throws is
    /// reported as `cannot read headers file 'PATH': ERROR`.
    public static func parse(
        _ argument: String,
        headerFileReader: (_ path: String) throws -> [UInt8]
    ) throws(CurlFormSyntaxError) -> CurlFormArgument {
        var scanner = try CurlFormScanner(argument: argument, option: "-F")
        return try scanner.parseForm(headerFileReader: headerFileReader)
    }

    /// Parses `--form-string`: the value is taken literally. Only the first
    /// `=` means something; `@`, `<`, `(`, `;` and quotes do not.
    public static func parseLiteral(_ argument: String) throws(CurlFormSyntaxError) -> CurlFormArgument {
        let scanner = try CurlFormScanner(argument: argument, option: "--form-string")
        let (name, valueStart) = try scanner.splitName()
        let value = String(decoding: scanner.bytes[valueStart...], as: UTF8.self)
        return CurlFormArgument(name: name, source: .text(value))
    }

    /// Reads a headers file whole (at most 1 MiB), the default for `parse`.
    public static func readHeaderFile(_ path: String) throws -> [UInt8] {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HeaderFileError(reason: errorText(errno)) }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw HeaderFileError(reason: errorText(EISDIR))
        }
        let limit = 1 << 20
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw HeaderFileError(reason: errorText(errno))
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > limit {
                throw HeaderFileError(reason: "larger than \(limit) bytes; is it a headers file?")
            }
        }
    }
}

/// Why the default reader could not read a headers file.
struct HeaderFileError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// A byte-for-byte model of curl's `formparse` and its helpers.
///
/// curl works on a NUL-terminated copy of the argument that it cuts up in
/// place; here `index` plays the part of curl's `p`, and `byte(at:)` returns
/// 0 past the end the way curl's `*p` reads the terminator.
struct CurlFormScanner {
    let argument: String
    let option: String
    let bytes: [UInt8]
    var index = 0
    var warnings: [String] = []

    init(argument: String, option: String) throws(CurlFormSyntaxError) {
        self.argument = argument
        self.option = option
        bytes = Array(argument.utf8)
        // curl copies the argument with strdup, so a NUL would silently cut it short.
        if bytes.contains(0) { throw error("contains a NUL character") }
    }

    func error(_ reason: String) -> CurlFormSyntaxError {
        CurlFormSyntaxError(argument: argument, reason: reason, option: option)
    }

    // MARK: formparse

    /// `contp = strchr(contents, '=')`: the name is everything before the
    /// first `=`, and may be empty; no `=` is an error.
    func splitName() throws(CurlFormSyntaxError) -> (name: String, valueStart: Int) {
        guard let equals = bytes.firstIndex(of: Byte.equals) else {
            throw error("expected name=value")
        }
        return (String(decoding: bytes[..<equals], as: UTF8.self), equals + 1)
    }

    mutating func parseForm(headerFileReader: (String) throws -> [UInt8]) throws(CurlFormSyntaxError)
        -> CurlFormArgument
    {
        let (name, valueStart) = try splitName()
        index = valueStart
        let first = byte(at: index)

        if first == Byte.openParen {
            // curl: `if(*contp == '(' && !literal_value)` starts a multipart/mixed group.
            throw error(
                "a value that starts with '(' opens a multipart/mixed group in curl, which Hoist does not send;"
                    + " to send text that starts with '(', quote it (\(name)=\"(...)\") or use --form-string")
        }
        if name.isEmpty && bytes[valueStart...].elementsEqual([Byte.closeParen]) {
            // curl: `else if(!name && !strcmp(contp, ")") && !literal_value)` ends a group.
            throw error(
                "'=)' closes a multipart/mixed group in curl, which Hoist does not send;"
                    + " to send ')' as a text field with no name, use --form-string '=)'")
        }

        var argumentResult: CurlFormArgument
        if first == Byte.at {
            // Files, separated by ',' (`get_param_part(config, ',', ...)` in a loop while sep != 0).
            var files: [Parameters] = []
            repeat {
                index += 1
                files.append(try parameters(until: Byte.comma, headerFileReader: headerFileReader))
            } while byte(at: index) != 0
            if files.count > 1 {
                let paths = files.map { String(decoding: $0.data, as: UTF8.self) }
                let listed = paths.map { displayQuoted($0) }.joined(separator: ", ")
                let repeated = paths.map { path -> String in
                    let needsQuotes = path.utf8.contains { $0 == Byte.comma || $0 == Byte.semicolon }
                    return "-F " + shellQuoted("\(name)=@" + (needsQuotes ? curlQuoted(path) : path))
                }.joined(separator: " ")
                throw error(
                    "\(files.count) files in one field (\(listed)) are sent by curl as one multipart/mixed part,"
                        + " which Hoist does not send; repeat -F with the same name instead: \(repeated)"
                        + " (a path that contains a comma must be quoted: \(name)=@\"a,b.jpg\")")
            }
            let file = files[0]
            let path = try nonEmptyPath(file.data, after: "@")
            argumentResult = CurlFormArgument(
                name: name, source: path == "-" ? .standardInput : .file(path: path), filename: file.filename)
            try finish(&argumentResult, with: file)
        } else if first == Byte.lessThan {
            // `get_param_part(config, '\0', &contp, &data, &type, NULL, &encoder, &headers)`: no filename.
            index += 1
            let file = try parameters(until: nil, headerFileReader: headerFileReader)
            let path = try nonEmptyPath(file.data, after: "<")
            if let ignored = file.filename {
                warnings.append(
                    "filename=\(displayQuoted(ignored)) is ignored: a '<file' field is sent as text, without a filename"
                        + " (curl: \"Field file name not allowed here\")")
            }
            argumentResult = CurlFormArgument(
                name: name, source: path == "-" ? .standardInputAsText : .fileAsText(path: path))
            try finish(&argumentResult, with: file)
        } else {
            let text = try parameters(until: nil, headerFileReader: headerFileReader)
            argumentResult = CurlFormArgument(
                name: name, source: .text(String(decoding: text.data, as: UTF8.self)), filename: text.filename)
            try finish(&argumentResult, with: text)
        }
        argumentResult.warnings = warnings
        return argumentResult
    }

    private func nonEmptyPath(_ data: [UInt8], after marker: String) throws(CurlFormSyntaxError) -> String {
        // curl would try to open "" and fail with "(26) Failed to open/read local data".
        guard !data.isEmpty else { throw error("expected a file path after '\(marker)'") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Applies type, encoder and headers, the parts shared by every kind of field.
    private mutating func finish(_ result: inout CurlFormArgument, with parameters: Parameters)
        throws(CurlFormSyntaxError)
    {
        if let encoder = parameters.encoder {
            throw error(
                "encoder=\(String(decoding: encoder, as: UTF8.self)) is not supported: Hoist sends every part's bytes"
                    + " as they are, with no Content-Transfer-Encoding; remove ;encoder=")
        }
        if let type = parameters.type {
            result.contentType = String(decoding: type, as: UTF8.self)
        }
        var headers: [HeaderField] = []
        for line in parameters.headers {
            headers.append(try headerField(line))
        }
        // curl takes the part's type from type= when given, else from the first
        // Content-Type header, and sends only that one Content-Type line.
        var keptContentType = result.contentType != nil
        result.headers = headers.filter { header in
            guard header.name.lowercased() == "content-type" else { return true }
            if keptContentType {
                warnings.append(
                    "header \(displayQuoted("\(header.name): \(header.value)")) is not sent:"
                        + (result.contentType != nil ? " type= sets the Content-Type" : " an earlier header sets it"))
                return false
            }
            keptContentType = true
            return true
        }
    }

    // MARK: get_param_part

    /// What `get_param_part` returns for one value.
    struct Parameters {
        var data: [UInt8] = []
        var type: [UInt8]?
        var filename: String?
        var encoder: [UInt8]?
        var headers: [HeaderLine] = []
    }

    /// One header line and where it came from, for messages.
    struct HeaderLine {
        var bytes: [UInt8]
        /// `nil` for `headers=...`; the file and line for `headers=@file`.
        var file: (path: String, line: Int)?
    }

    /// curl's `get_param_part`: the value, then `;`-separated modifiers, up
    /// to the end or `endchar` (`,` between files). Leaves `index` on the
    /// separator that ended it (0 at the end).
    mutating func parameters(
        until endchar: UInt8?,
        headerFileReader: (String) throws -> [UInt8]
    ) throws(CurlFormSyntaxError) -> Parameters {
        var result = Parameters()
        result.data = spacedWord(until: endchar)
        // `type` and `endct`: the type runs from typeStart to typeEnd, and
        // while typeEnd is open, unknown modifiers extend it.
        var typeStart = 0
        var typeEnd: Int?
        func closeType() {
            if let end = typeEnd { result.type = Array(bytes[typeStart..<end]) }
            typeEnd = nil
        }

        var separator = byte(at: index)
        while separator == Byte.semicolon {
            // `while(p++ && ISSPACE(*p));`
            index += 1
            skipSpaces()
            if typeEnd == nil, hasPrefix("type=") {
                index += 5
                skipSpaces()
                typeStart = index
                index = try typeSpecifierEnd(from: typeStart)
                typeEnd = index
                extendType(&typeEnd, until: endchar)
            } else if hasPrefix("filename=") {
                closeType()
                index += 9
                result.filename = String(decoding: spacedWord(until: endchar), as: UTF8.self)
            } else if hasPrefix("headers=") {
                closeType()
                index += 8
                if byte(at: index) == Byte.at || byte(at: index) == Byte.lessThan {
                    // `do { p++; } while(ISSPACE(*p));`
                    repeat { index += 1 } while isSpace(byte(at: index))
                    let word = word(until: endchar)
                    let path = String(
                        decoding: word.quoted ? word.bytes : trimmedTrailingSpaces(word.bytes), as: UTF8.self)
                    guard !path.isEmpty else { throw error("expected a file path after 'headers=@'") }
                    let contents: [UInt8]
                    do {
                        contents = try headerFileReader(path)
                    } catch {
                        // curl only warns ("Cannot read from FILE") and sends the part without these headers.
                        throw self.error("cannot read headers file \(displayQuoted(path)): \(error)")
                    }
                    result.headers += try headerLines(fromFile: contents, path: path)
                } else {
                    let line = spacedWord(until: endchar)
                    // curl appends an empty line to its list, then sends nothing for it.
                    if !line.isEmpty { result.headers.append(HeaderLine(bytes: line, file: nil)) }
                }
            } else if hasPrefix("encoder=") {
                closeType()
                index += 8
                result.encoder = spacedWord(until: endchar)
            } else if typeEnd != nil {
                // "This is part of content type.": `type=text/plain;charset=utf-8`.
                typeEnd = index
                extendType(&typeEnd, until: endchar)
            } else {
                let unknown = word(until: endchar)
                if !unknown.bytes.isEmpty {
                    warnings.append(
                        "skipped unknown form field modifier \(displayQuoted(String(decoding: unknown.bytes, as: UTF8.self)))"
                            + " (curl: \"skip unknown form field\")")
                }
            }
            separator = byte(at: index)
        }
        closeType()
        return result
    }

    /// `sscanf(type, "%127[^/ ]/%127[^;, \n]", type_major, type_minor)` must
    /// match both; returns `type + strlen(major) + strlen(minor) + 1`.
    private func typeSpecifierEnd(from start: Int) throws(CurlFormSyntaxError) -> Int {
        var position = start
        while position - start < 127, position < bytes.count,
            bytes[position] != Byte.slash, bytes[position] != Byte.space
        {
            position += 1
        }
        let majorLength = position - start
        guard majorLength > 0, byte(at: position) == Byte.slash else { throw badType(from: start) }
        position += 1
        let minorStart = position
        while position - minorStart < 127, position < bytes.count,
            ![Byte.semicolon, Byte.comma, Byte.space, Byte.newline].contains(bytes[position])
        {
            position += 1
        }
        guard position > minorStart else { throw badType(from: start) }
        return position
    }

    private func badType(from start: Int) -> CurlFormSyntaxError {
        var end = start
        while end < bytes.count, bytes[end] != Byte.semicolon { end += 1 }
        let shown = String(decoding: bytes[start..<end], as: UTF8.self)
        return error(
            "type=\(shown) is not a valid content type: expected type/subtype, such as type=image/png"
                + " (curl: \"Illegally formatted content-type field\")")
    }

    /// `for(endct = p; *p && *p != ';' && *p != endchar; p++) if(!ISSPACE(*p)) endct = p + 1;`
    private mutating func extendType(_ typeEnd: inout Int?, until endchar: UInt8?) {
        while index < bytes.count, bytes[index] != Byte.semicolon, bytes[index] != endchar {
            if !isSpace(bytes[index]) { typeEnd = index + 1 }
            index += 1
        }
    }

    // MARK: get_param_word

    struct Word {
        var bytes: [UInt8]
        var quoted: Bool
    }

    /// Skips leading spaces, reads a word, and strips trailing spaces unless
    /// it was quoted: the pattern every caller of `get_param_word` follows.
    mutating func spacedWord(until endchar: UInt8?) -> [UInt8] {
        skipSpaces()
        let word = word(until: endchar)
        return word.quoted ? word.bytes : trimmedTrailingSpaces(word.bytes)
    }

    /// curl's `get_param_word`. A word that starts with `"` runs to the next
    /// unescaped `"`; inside it `\"` and `\\` are the only escapes (any other
    /// backslash is kept). Whatever follows the closing quote up to `;` or
    /// `endchar` is dropped with a warning. Without a closing quote the word
    /// is read as unquoted, quote included. An unquoted word runs to `;` or
    /// `endchar`.
    mutating func word(until endchar: UInt8?) -> Word {
        let begin = index
        if byte(at: begin) == Byte.quote {
            var position = begin + 1
            var value: [UInt8] = []
            while position < bytes.count {
                let current = bytes[position]
                if current == Byte.backslash, position + 1 < bytes.count,
                    bytes[position + 1] == Byte.backslash || bytes[position + 1] == Byte.quote
                {
                    value.append(bytes[position + 1])
                    position += 2
                    continue
                }
                if current == Byte.quote {
                    position += 1
                    var trailingData = false
                    while position < bytes.count, bytes[position] != Byte.semicolon, bytes[position] != endchar {
                        if !isSpace(bytes[position]) { trailingData = true }
                        position += 1
                    }
                    if trailingData {
                        let written = String(decoding: bytes[begin..<position], as: UTF8.self)
                        warnings.append(
                            "ignored what follows the closing quote in \(displayQuoted(written))"
                                + " (curl: \"Trailing data after quoted form parameter\")")
                    }
                    index = position
                    return Word(bytes: value, quoted: true)
                }
                value.append(current)
                position += 1
            }
            // "end quote is missing, treat it as non-quoted."
            var end = begin
            while end < bytes.count, bytes[end] != Byte.semicolon, bytes[end] != endchar { end += 1 }
            warnings.append(
                "no closing quote in \(displayQuoted(String(decoding: bytes[begin..<end], as: UTF8.self))):"
                    + " sent as written, quote included, as curl does")
        }
        var end = begin
        while end < bytes.count, bytes[end] != Byte.semicolon, bytes[end] != endchar { end += 1 }
        index = end
        return Word(bytes: Array(bytes[begin..<end]), quoted: false)
    }

    // MARK: read_field_headers

    /// Header lines from a headers file, by curl's rules: `\r` is dropped
    /// wherever it is; a line that starts with `#` is a comment; a line that
    /// starts with white space continues the previous header (its leading
    /// white space kept, the line break dropped); blank lines are ignored;
    /// trailing white space is stripped.
    ///
    /// curl truncates a header at 998 bytes with a warning, and a NUL byte
    /// silently ends a header; Hoist refuses both, and bytes that are not UTF-8.
    func headerLines(fromFile contents: [UInt8], path: String) throws(CurlFormSyntaxError) -> [HeaderLine] {
        var lines: [HeaderLine] = []
        var header: [UInt8] = []
        var headerLine = 1
        var column = 0
        var inComment = false
        var lineNumber = 1

        func flush() throws(CurlFormSyntaxError) {
            let stripped = trimmedTrailingSpaces(header)
            header = []
            guard !stripped.isEmpty else { return }
            guard stripped.count <= 998 else {
                throw error(
                    "headers file \(displayQuoted(path)), line \(headerLine): header is longer than 998 bytes"
                        + " (curl would truncate it)")
            }
            lines.append(HeaderLine(bytes: stripped, file: (path, headerLine)))
        }

        for character in contents {
            if column == 0 && !isSpace(character) { try flush() }
            switch character {
            case Byte.carriageReturn:
                continue
            case Byte.newline:
                column = 0
                inComment = false
                lineNumber += 1
                continue
            case Byte.hash where column == 0:
                inComment = true
            case 0:
                throw error("headers file \(displayQuoted(path)), line \(lineNumber): contains a NUL byte")
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
    private func headerField(_ line: HeaderLine) throws(CurlFormSyntaxError) -> HeaderField {
        let origin = line.file.map { " (headers file \(displayQuoted($0.path)), line \($0.line))" } ?? ""
        guard let text = String(validating: line.bytes, as: UTF8.self) else {
            throw error("header\(origin) is not valid UTF-8")
        }
        let shown = displayQuoted(text)
        if line.bytes.contains(where: { $0 == Byte.carriageReturn || $0 == Byte.newline || $0 == 0 }) {
            throw error("header \(shown)\(origin) contains CR, LF or NUL; a header must be one line")
        }
        guard let colon = line.bytes.firstIndex(of: Byte.colon) else {
            throw error("header \(shown)\(origin) is not of the form 'Name: value'")
        }
        let name = String(decoding: line.bytes[..<colon], as: UTF8.self)
        var value = line.bytes[(colon + 1)...]
        while let first = value.first, first == Byte.space || first == Byte.tab { value = value.dropFirst() }
        while let last = value.last, last == Byte.space || last == Byte.tab { value = value.dropLast() }
        guard !name.isEmpty, name.utf8.allSatisfy(HeaderEncoding.isTokenCharacter) else {
            throw error(
                "header \(shown)\(origin) has an invalid name \(displayQuoted(name)):"
                    + " use letters, digits and !#$%&'*+-.^_`|~ only")
        }
        if name.lowercased() == "content-disposition" {
            // curl would send it in place of its own; Hoist builds it from the name and filename.
            throw error(
                "header \(shown)\(origin) would replace the part's Content-Disposition, which Hoist builds"
                    + " from the field name and filename=; set those instead")
        }
        return HeaderField(name, String(decoding: value, as: UTF8.self))
    }

    // MARK: helpers

    func byte(at position: Int) -> UInt8 {
        position < bytes.count ? bytes[position] : 0
    }

    /// curl's `checkprefix`: a case-insensitive ASCII prefix test.
    func hasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { expected in
            for offset in 0..<count where lowercased(bytes[index + offset]) != lowercased(expected[offset]) {
                return false
            }
            return true
        }
    }

    mutating func skipSpaces() {
        while isSpace(byte(at: index)) { index += 1 }
    }
}

/// curl's `ISSPACE`: space, tab, LF, VT, FF, CR.
private func isSpace(_ byte: UInt8) -> Bool {
    byte == Byte.space || (0x09...0x0D).contains(byte)
}

private func trimmedTrailingSpaces(_ bytes: [UInt8]) -> [UInt8] {
    var end = bytes.count
    while end > 0, isSpace(bytes[end - 1]) { end -= 1 }
    return Array(bytes[..<end])
}

private func lowercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
}

/// A path written the way curl reads a quoted word back.
private func curlQuoted(_ text: String) -> String {
    "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
}

/// Text quoted for a POSIX shell, for the suggestions in error messages.
private func shellQuoted(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
}

private enum Byte {
    static let equals = UInt8(ascii: "=")
    static let semicolon = UInt8(ascii: ";")
    static let comma = UInt8(ascii: ",")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let colon = UInt8(ascii: ":")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let hash = UInt8(ascii: "#")
    static let at = UInt8(ascii: "@")
    static let lessThan = UInt8(ascii: "<")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")
}
