import FormData
import FoundationEssentials
import UploadEngine
import WireRules

extension Target {
    /// The one way settings become requests, for `hoist send` and the UI
    /// alike: the target, its fields and headers (`entries`, in order) and
    /// what this send carries. Text fields go first in every body. Bad input
    /// is refused here, before any task exists.
    /// `imagesByFile` replaces the target's image settings for some files
    /// (the UI's `I` on marked files); `nil` sends that file as it is.
    public func requests(
        entries: [FormEntry], payload: Payload, imagesByFile: [String: ImageSettings?] = [:]
    ) throws(PlanError) -> [UploadRequest] {
        var requests = try unpreparedRequests(entries: entries, payload: payload)
        guard images != nil || !imagesByFile.isEmpty else { return requests }
        for index in requests.indices {
            let paths = requests[index].body.filePaths
            requests[index].images = images
            requests[index].imagesByFile = imagesByFile.filter { paths.contains($0.key) }
        }
        return requests
    }

    private func unpreparedRequests(entries: [FormEntry], payload: Payload) throws(PlanError) -> [UploadRequest] {
        guard !url.isEmpty else { throw .noURL }
        do { _ = try TargetValue.url(url) } catch { throw .badValue(error) }
        var headers = entries.filter { $0.kind == .header }.map { HeaderField($0.name, $0.value) }
        let fields = entries.filter { $0.kind == .field }.map { FormField($0.name, $0.value) }
        if let kind { return try kind.requests(for: self, headers: headers, fields: fields, payload: payload) }
        if payload.document != nil, !headers.contains(where: { $0.name.lowercased() == "accept" }) {
            headers.append(HeaderField("Accept", "application/json"))
        }
        // Copies of one request share its headers and policies.
        let template = UploadRequest(
            url: url, method: method, headers: headers, body: .bytes([], contentType: ""), timeouts: timeouts,
            retry: retryPolicy, success: successRule)
        func request(_ body: UploadRequest.Body, label: String) -> UploadRequest {
            var request = template
            request.body = body
            request.label = label
            return request
        }
        let files = payload.files
        if transfer == .tus { return try tusRequests(headers: headers, fields: fields, payload: payload) }
        switch bodyKind {
        case .multipart:
            return try multipartBodies(fields: fields, payload: payload).map {
                request(.multipart($0.form), label: $0.label)
            }
        case .base64JSON:
            guard !files.isEmpty else { throw .needsFile(bodyKind) }
            var textFields = fields
            for part in payload.parts {
                guard case .bytes(let bytes) = part.content, part.filename == nil else { throw .onlyTextParts }
                textFields.append(FormField(part.name, String(decoding: bytes, as: UTF8.self)))
            }
            return files.map { file in
                let body = Base64JSONBody(
                    fileField: file.field, path: file.path, typeValue: file.contentType, fields: textFields)
                return request(.base64JSON(body), label: file.displayName)
            }
        case .raw:
            guard fields.isEmpty else { throw .cannotSendFields(bodyKind, names: fields.map(\.name)) }
            guard !files.isEmpty else { throw .needsFile(bodyKind) }
            return files.map { request($0.rawBody, label: $0.path == "-" ? "standard input" : $0.displayName) }
        case .urlencoded:
            guard !payload.encodedData.isEmpty else {
                guard !fields.isEmpty else { throw .needsFields(bodyKind) }
                return [request(.urlencoded(URLEncodedForm(fields: fields)), label: Self.count(fields.count, "field"))]
            }
            // curl's `-d` pieces are sent as given, after the fields.
            let pieces = URLEncodedForm(fields: fields).encodedPairs + payload.encodedData
            let body = Array(pieces.joined(separator: "&").utf8)
            return [request(.bytes(body, contentType: "application/x-www-form-urlencoded"), label: displayURL)]
        case .json:
            if let document = payload.document {
                guard fields.isEmpty else { throw .cannotSendFields(bodyKind, names: fields.map(\.name)) }
                return [request(.json(document), label: displayURL)]
            }
            guard !fields.isEmpty else { throw .needsFields(bodyKind) }
            let object = JSONValue.object(fields.map { .init($0.name, .string($0.value)) })
            return [request(.json(Array(object.compactJSON.utf8)), label: "JSON, \(Self.count(fields.count, "field"))")]
        }
    }

    /// One form, or one per file when files are sent a request each.
    private func multipartBodies(fields: [FormField], payload: Payload) throws(PlanError) -> [(
        form: MultipartForm, label: String
    )] {
        let leading = fields.map { Part.text($0.name, $0.value) }
        let files = payload.files
        /// The form with every file, or with only the file at `chosen` (item index, file index).
        func form(withFile chosen: (item: Int, file: Int)?) -> MultipartForm {
            var parts = leading
            for (index, item) in payload.items.enumerated() {
                switch item {
                case .part(let part): parts.append(part)
                case .files(let slot):
                    if let chosen {
                        if chosen.item == index { parts.append(slot[chosen.file].part) }
                    } else {
                        parts += slot.map(\.part)
                    }
                }
            }
            return MultipartForm(parts: parts)
        }
        if files.isEmpty || payload.oneRequest {
            let whole = form(withFile: nil)
            guard !whole.parts.isEmpty else { throw .nothingToSend }
            let label: String
            if files.count > 1 {
                label = Self.count(files.count, "file")
            } else if let named = whole.parts.first(where: { $0.filename != nil })?.filename {
                label = named
            } else {
                label = Self.count(whole.parts.count, "field")
            }
            return [(whole, label)]
        }
        var forms: [(form: MultipartForm, label: String)] = []
        forms.reserveCapacity(files.count)
        for (index, item) in payload.items.enumerated() {
            guard case .files(let slot) = item else { continue }
            for (position, file) in slot.enumerated() {
                forms.append((form(withFile: (index, position)), file.displayName))
            }
        }
        return forms
    }

    /// One resumable upload per file. Fields and text parts become
    /// `Upload-Metadata` after `filename` and `filetype`.
    private func tusRequests(headers: [HeaderField], fields: [FormField], payload: Payload) throws(PlanError)
        -> [UploadRequest]
    {
        var extra = fields.map { HeaderField($0.name, $0.value) }
        for part in payload.parts {
            guard case .bytes(let bytes) = part.content, part.filename == nil else { throw .tusTextOnly }
            extra.append(HeaderField(part.name, String(decoding: bytes, as: UTF8.self)))
        }
        guard payload.document == nil, payload.encodedData.isEmpty else { throw .tusTextOnly }
        for pair in extra {
            if let problem = TusMetadata.problem(withKey: pair.name) { throw .tusMetadataKey(problem) }
        }
        guard !payload.files.isEmpty else { throw .tusNeedsFile }
        return payload.files.map { file in
            let type = file.contentType ?? MIMETypes.type(forFilename: file.displayName)
            let metadata = [HeaderField("filename", file.displayName), HeaderField("filetype", type)] + extra
            var choice = file
            choice.contentType = type
            return UploadRequest(
                url: url, method: .post, headers: headers, body: choice.rawBody,
                timeouts: timeouts, retry: retryPolicy, success: successRule,
                label: file.displayName,
                transfer: .tus(TusSettings(chunkSize: chunkSize, parallelParts: parallelParts, metadata: metadata)))
        }
    }

    var displayURL: String { Secrets.displayURL(url) }

    /// `1 file`, `3 files`: what labels and notices say.
    public static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
