import WireRules

// curl's `get_param_part`: a value followed by `;`-separated modifiers.
extension CurlFormScanner {
    /// What `get_param_part` returns for one value.
    struct Parameters {
        var data: [UInt8] = []
        var type: [UInt8]?
        var filename: String?
        var encoder: [UInt8]?
        var headers: [CurlFormHeaders.Line] = []
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
        while separator == CurlByte.semicolon {
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
                result.headers += try headers(until: endchar, headerFileReader: headerFileReader)
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
                    let shown = TerminalText.quoted(String(decoding: unknown.bytes, as: UTF8.self))
                    warnings.append("skipped unknown form field modifier \(shown) (curl: \"skip unknown form field\")")
                }
            }
            separator = byte(at: index)
        }
        closeType()
        return result
    }

    /// The value of one `headers=` modifier: a header line, or the lines of
    /// the file named by `headers=@file` or `headers=<file`.
    private mutating func headers(
        until endchar: UInt8?,
        headerFileReader: (String) throws -> [UInt8]
    ) throws(CurlFormSyntaxError) -> [CurlFormHeaders.Line] {
        guard byte(at: index) == CurlByte.at || byte(at: index) == CurlByte.lessThan else {
            let line = spacedWord(until: endchar)
            // curl appends an empty line to its list, then sends nothing for it.
            return line.isEmpty ? [] : [CurlFormHeaders.Line(bytes: line, file: nil)]
        }
        // `do { p++; } while(ISSPACE(*p));`
        repeat { index += 1 } while CurlByte.isSpace(byte(at: index))
        let word = word(until: endchar)
        let path = String(
            decoding: word.quoted ? word.bytes : CurlByte.trimmedTrailingSpaces(word.bytes), as: UTF8.self)
        guard !path.isEmpty else { throw error("expected a file path after 'headers=@'") }
        let contents: [UInt8]
        do {
            contents = try headerFileReader(path)
        } catch {
            // curl only warns ("Cannot read from FILE") and sends the part without these headers.
            throw self.error("cannot read headers file \(TerminalText.quoted(path)): \(error)")
        }
        do throws(CurlFormHeaders.Refusal) {
            return try CurlFormHeaders.lines(inFile: contents, path: path)
        } catch {
            throw self.error(error.reason)
        }
    }

    /// `sscanf(type, "%127[^/ ]/%127[^;, \n]", type_major, type_minor)` must
    /// match both; returns `type + strlen(major) + strlen(minor) + 1`.
    private func typeSpecifierEnd(from start: Int) throws(CurlFormSyntaxError) -> Int {
        var position = start
        while position - start < 127, position < bytes.count,
            bytes[position] != CurlByte.slash, bytes[position] != CurlByte.space
        {
            position += 1
        }
        let majorLength = position - start
        guard majorLength > 0, byte(at: position) == CurlByte.slash else { throw badType(from: start) }
        position += 1
        let minorStart = position
        while position - minorStart < 127, position < bytes.count,
            ![CurlByte.semicolon, CurlByte.comma, CurlByte.space, CurlByte.newline].contains(bytes[position])
        {
            position += 1
        }
        guard position > minorStart else { throw badType(from: start) }
        return position
    }

    private func badType(from start: Int) -> CurlFormSyntaxError {
        var end = start
        while end < bytes.count, bytes[end] != CurlByte.semicolon { end += 1 }
        let shown = String(decoding: bytes[start..<end], as: UTF8.self)
        return error(
            "type=\(shown) is not a valid content type: expected type/subtype, such as type=image/png"
                + " (curl: \"Illegally formatted content-type field\")")
    }

    /// `for(endct = p; *p && *p != ';' && *p != endchar; p++) if(!ISSPACE(*p)) endct = p + 1;`
    private mutating func extendType(_ typeEnd: inout Int?, until endchar: UInt8?) {
        while index < bytes.count, bytes[index] != CurlByte.semicolon, bytes[index] != endchar {
            if !CurlByte.isSpace(bytes[index]) { typeEnd = index + 1 }
            index += 1
        }
    }
}
