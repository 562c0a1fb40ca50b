import WireRules

/// A file sent as base64 inside a JSON object, for backends that accept only
/// that: `{"image": "<base64>", "type": "jpg", ...other fields}`. The file is
/// streamed and encoded in bounded memory; the length is exact.
public struct Base64JSONBody: Sendable, Hashable, Codable {
    public var fileField: String
    public var path: String
    /// The key naming the file type; `nil` leaves it out.
    public var typeField: String?
    /// Defaults to the file's extension, lowercased ("jpg").
    public var typeValue: String?
    public var fields: [FormField]

    public init(
        fileField: String, path: String, typeField: String? = "type", typeValue: String? = nil, fields: [FormField] = []
    ) {
        self.fileField = fileField
        self.path = path
        self.typeField = typeField
        self.typeValue = typeValue
        self.fields = fields
    }

    public func makeBody() throws(FormDataError) -> RequestBody {
        let region = try FileRegion.wholeFile(path: path, field: fileField)
        var layout = RequestBody.Layout()
        layout.append(bytes: Array("{".utf8) + JSONString.quoted(fileField) + Array(":\"".utf8))
        layout.append(base64: region)
        var tail: [UInt8] = Array("\"".utf8)
        var members = fields
        if let typeField {
            members.insert(FormField(typeField, typeValue ?? fileExtension(path)), at: 0)
        }
        for member in members {
            tail += Array(",".utf8) + JSONString.quoted(member.name) + Array(":".utf8) + JSONString.quoted(member.value)
        }
        layout.append(bytes: tail + Array("}".utf8))
        return RequestBody(contentType: "application/json", segments: layout.finish())
    }

    private func fileExtension(_ path: String) -> String {
        let name = baseName(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}

extension RequestBody {
    /// A file sent as the whole body, typed by its extension (or explicitly).
    public static func rawFile(path: String, contentType: String? = nil) throws(FormDataError) -> RequestBody {
        let region = try FileRegion.wholeFile(path: path, field: "")
        var layout = Layout()
        layout.append(file: region)
        return RequestBody(contentType: contentType ?? MIMETypes.type(forFilename: path), segments: layout.finish())
    }

    /// A JSON document given as bytes.
    public static func json(_ bytes: [UInt8], contentType: String = "application/json") -> RequestBody {
        RequestBody(contentType: contentType, segments: bytes.isEmpty ? [] : [.bytes(bytes)])
    }
}
