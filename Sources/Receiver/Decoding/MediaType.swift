/// A request's Content-Type, split into its lowercased `type/subtype` and parameters.
struct MediaType {
    /// "multipart/form-data", lowercased, without parameters.
    var essence: String
    var parameters: HeaderParameters

    init(parsing header: String) {
        parameters = HeaderParameters(parsing: header, backslashEscapes: true)
        essence = parameters.value.lowercased()
    }

    var isMultipartFormData: Bool { essence == "multipart/form-data" }
    var isURLEncodedForm: Bool { essence == "application/x-www-form-urlencoded" }
    /// `application/json` and the `+json` types (`application/problem+json`, ...).
    var isJSON: Bool {
        essence == "application/json" || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }
}
