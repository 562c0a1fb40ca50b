extension RequestBody {
    /// The body as a person reads it: boundaries and headers verbatim, CR LF
    /// shown as line ends, file and stream data as placeholders, and other
    /// in-memory values shown when printable (else summarised). No file is read.
    public func preview(maxValueBytes: Int = 200) -> String {
        var out = ""
        for segment in segments {
            switch segment {
            case .bytes(let bytes):
                out += Self.printable(bytes, maxValueBytes: maxValueBytes)
            case .file(let region):
                out += "<\(region.length) bytes from \(region.path)>"
            case .base64(let region):
                out += "<\(region.length) bytes from \(region.path), base64-encoded>"
            case .stream(let source, _):
                out += "<stream from \(source.displayName)>"
            }
        }
        return out
    }

    private static func printable(_ bytes: [UInt8], maxValueBytes: Int) -> String {
        // Split on CRLF so each header and each value is judged alone.
        var out = ""
        var line: [UInt8] = []
        func flush() {
            let text = String(decoding: line, as: UTF8.self)
            let isText =
                String(validating: line, as: UTF8.self) != nil
                && !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }
            if isText && line.count <= maxValueBytes {
                out += text
            } else if isText {
                out += String(decoding: line.prefix(maxValueBytes), as: UTF8.self) + "…<\(line.count) bytes>"
            } else {
                out += "<\(line.count) bytes of binary data>"
            }
            line = []
        }
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A {
                flush()
                out += "\n"
                index += 2
            } else {
                line.append(bytes[index])
                index += 1
            }
        }
        if !line.isEmpty { flush() }
        return out
    }
}
