import FormData

/// `parse` and `failure` over an in-memory headers-file table, for the `-F` grammar suites.
protocol CurlFormParsing {}

extension CurlFormParsing {
    /// A headers-file reader over an in-memory table.
    static func reader(_ files: [String: String]) -> (String) throws -> [UInt8] {
        { path in
            guard let text = files[path] else { throw StubMissing(path: path) }
            return Array(text.utf8)
        }
    }

    func parse(_ argument: String, files: [String: String] = [:]) throws -> CurlFormArgument {
        try CurlFormArgument.parse(argument, headerFileReader: Self.reader(files))
    }

    /// The error `parse` throws, or nil.
    func failure(_ argument: String, files: [String: String] = [:]) -> CurlFormSyntaxError? {
        do {
            _ = try CurlFormArgument.parse(argument, headerFileReader: Self.reader(files))
            return nil
        } catch {
            return error
        }
    }
}

/// What the in-memory reader throws for a file it does not hold.
struct StubMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "No such file or directory" }
}
