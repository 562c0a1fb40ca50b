import WireRules

// curl's `formparse`: what kind of field an argument is, on top of the
// tokens of `CurlFormScanner` and the header lines of `CurlFormHeaders`.
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
        return try parseForm(&scanner, headerFileReader: headerFileReader)
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
        try CurlFormHeaders.readFile(path)
    }

    private static func parseForm(
        _ scanner: inout CurlFormScanner,
        headerFileReader: (String) throws -> [UInt8]
    ) throws(CurlFormSyntaxError) -> CurlFormArgument {
        let (name, valueStart) = try scanner.splitName()
        scanner.index = valueStart
        let first = scanner.byte(at: valueStart)

        if first == CurlByte.openParen {
            // curl: `if(*contp == '(' && !literal_value)` starts a multipart/mixed group.
            throw scanner.error(
                "a value that starts with '(' opens a multipart/mixed group in curl, which Hoist does not send;"
                    + " to send text that starts with '(', quote it (\(name)=\"(...)\") or use --form-string")
        }
        if name.isEmpty && scanner.bytes[valueStart...].elementsEqual([CurlByte.closeParen]) {
            // curl: `else if(!name && !strcmp(contp, ")") && !literal_value)` ends a group.
            throw scanner.error(
                "'=)' closes a multipart/mixed group in curl, which Hoist does not send;"
                    + " to send ')' as a text field with no name, use --form-string '=)'")
        }

        var result: CurlFormArgument
        let parameters: CurlFormScanner.Parameters
        if first == CurlByte.at {
            // Files, separated by ',' (`get_param_part(config, ',', ...)` in a loop while sep != 0).
            var files: [CurlFormScanner.Parameters] = []
            repeat {
                scanner.index += 1
                files.append(try scanner.parameters(until: CurlByte.comma, headerFileReader: headerFileReader))
            } while scanner.byte(at: scanner.index) != 0
            if files.count > 1 { throw scanner.error(severalFilesReason(name: name, files: files)) }
            parameters = files[0]
            let path = try nonEmptyPath(parameters.data, after: "@", in: scanner)
            result = CurlFormArgument(
                name: name, source: path == "-" ? .standardInput : .file(path: path), filename: parameters.filename)
        } else if first == CurlByte.lessThan {
            // `get_param_part(config, '\0', &contp, &data, &type, NULL, &encoder, &headers)`: no filename.
            scanner.index += 1
            parameters = try scanner.parameters(until: nil, headerFileReader: headerFileReader)
            let path = try nonEmptyPath(parameters.data, after: "<", in: scanner)
            if let ignored = parameters.filename {
                scanner.warnings.append(
                    "filename=\(TerminalText.quoted(ignored)) is ignored: a '<file' field is sent as text, without a filename"
                        + " (curl: \"Field file name not allowed here\")")
            }
            result = CurlFormArgument(
                name: name, source: path == "-" ? .standardInputAsText : .fileAsText(path: path))
        } else {
            parameters = try scanner.parameters(until: nil, headerFileReader: headerFileReader)
            result = CurlFormArgument(
                name: name, source: .text(String(decoding: parameters.data, as: UTF8.self)),
                filename: parameters.filename)
        }
        try result.apply(parameters, scanner: &scanner)
        result.warnings = scanner.warnings
        return result
    }

    private static func nonEmptyPath(
        _ data: [UInt8], after marker: String, in scanner: CurlFormScanner
    ) throws(CurlFormSyntaxError) -> String {
        // curl would try to open "" and fail with "(26) Failed to open/read local data".
        guard !data.isEmpty else { throw scanner.error("expected a file path after '\(marker)'") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Why `name=@a,b` is refused, with the `-F` arguments to use instead.
    private static func severalFilesReason(name: String, files: [CurlFormScanner.Parameters]) -> String {
        let paths = files.map { String(decoding: $0.data, as: UTF8.self) }
        let listed = paths.map { TerminalText.quoted($0) }.joined(separator: ", ")
        let repeated = paths.map { path -> String in
            let needsQuotes = path.utf8.contains { $0 == CurlByte.comma || $0 == CurlByte.semicolon }
            return "-F " + shellQuoted("\(name)=@" + (needsQuotes ? curlQuoted(path) : path))
        }.joined(separator: " ")
        return "\(files.count) files in one field (\(listed)) are sent by curl as one multipart/mixed part,"
            + " which Hoist does not send; repeat -F with the same name instead: \(repeated)"
            + " (a path that contains a comma must be quoted: \(name)=@\"a,b.jpg\")"
    }

    /// Applies type, encoder and headers, the parts shared by every kind of field.
    private mutating func apply(
        _ parameters: CurlFormScanner.Parameters, scanner: inout CurlFormScanner
    ) throws(CurlFormSyntaxError) {
        if let encoder = parameters.encoder {
            throw scanner.error(
                "encoder=\(String(decoding: encoder, as: UTF8.self)) is not supported: Hoist sends every part's bytes"
                    + " as they are, with no Content-Transfer-Encoding; remove ;encoder=")
        }
        if let type = parameters.type {
            contentType = String(decoding: type, as: UTF8.self)
        }
        var fields: [HeaderField] = []
        for line in parameters.headers {
            do throws(CurlFormHeaders.Refusal) {
                fields.append(try CurlFormHeaders.field(line))
            } catch {
                throw scanner.error(error.reason)
            }
        }
        // curl takes the part's type from type= when given, else from the first
        // Content-Type header, and sends only that one Content-Type line.
        var keptContentType = contentType != nil
        var notSent: [String] = []
        headers = fields.filter { header in
            guard header.name.lowercased() == "content-type" else { return true }
            if keptContentType {
                notSent.append(
                    "header \(TerminalText.quoted("\(header.name): \(header.value)")) is not sent:"
                        + (contentType != nil ? " type= sets the Content-Type" : " an earlier header sets it"))
                return false
            }
            keptContentType = true
            return true
        }
        scanner.warnings += notSent
    }
}

/// A path written the way curl reads a quoted word back.
private func curlQuoted(_ text: String) -> String {
    "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
}

/// Text quoted for a POSIX shell, for the suggestions in error messages.
public func shellQuoted(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
}
