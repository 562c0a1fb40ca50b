import FoundationEssentials
import Glibc
import UploadEngine

/// The secrets given on the command line: `-u`'s password, the values of
/// secret `-H` headers (by name, or marked with `--secret-header`), of
/// secret `-F` fields, `--token`, and a URL's password or credential query
/// values. Like curl, Hoist blanks them in its own argv, so
/// `/proc/PID/cmdline` and `ps` stop showing them; and every message it
/// prints has them masked, the parser's own errors included.
struct ArgumentSecrets {
    /// Per argument index, the byte ranges that hold a secret.
    private(set) var spans: [(argument: Int, range: Range<Int>)] = []
    /// The secret texts to mask in messages.
    private(set) var texts: Set<String> = []

    /// Shorter texts are not masked in messages: "a" would mask every "a".
    static let shortest = 3

    init(_ arguments: [String]) {
        let marked = Self.values(of: ["--secret-header"], in: arguments)
        let markedFields = Set(Self.values(of: ["--secret"], in: arguments))
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if let (option, value, offset) = Self.split(argument, next: arguments[safe: index + 1]) {
                let at = offset == nil ? index + 1 : index
                let base = offset ?? 0
                for range in Self.secretRanges(option: option, value: value, marked: marked, fields: markedFields) {
                    add(argument: at, range: (range.lowerBound + base)..<(range.upperBound + base), in: value, range)
                }
                if offset == nil { index += 1 }
            } else if argument.contains("://") {
                for range in Secrets.credentialRanges(inURL: argument) {
                    add(argument: index, range: range, in: argument, range)
                }
            }
            index += 1
        }
    }

    private mutating func add(argument: Int, range: Range<Int>, in value: String, _ local: Range<Int>) {
        guard !local.isEmpty else { return }
        spans.append((argument, range))
        let text = String(decoding: Array(value.utf8)[local], as: UTF8.self)
        if text.utf8.count >= Self.shortest { texts.insert(text) }
    }

    /// `message` with every secret replaced by the mask.
    func masked(_ message: String) -> String {
        Secrets.masked(message, hiding: texts)
    }

    /// Overwrites the secrets with `*` in the process's own argv, which is
    /// what `/proc/PID/cmdline` reads (argv[0] is not counted in `spans`).
    func blankProcessArguments() {
        let argv = CommandLine.unsafeArgv
        for (argument, range) in spans where argument + 1 < Int(CommandLine.argc) {
            guard let pointer = argv[argument + 1] else { continue }
            let length = strlen(pointer)
            for offset in range where offset < length { pointer[offset] = CChar(UInt8(ascii: "*")) }
        }
    }

    // MARK: - Reading the arguments

    private static let valueOptions: Set<String> = [
        "-u", "--user", "-H", "--header", "--token", "-F", "--form", "--form-string", "--secret-header", "--secret",
    ]

    /// An option that takes a value, and the value: from the next argument
    /// (offset `nil`), or joined as `--user=x` (offset of the value in the argument).
    private static func split(_ argument: String, next: String?) -> (String, String, Int?)? {
        if valueOptions.contains(argument) {
            return next.map { (argument, $0, nil) }
        }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            let option = String(argument[..<equals])
            guard valueOptions.contains(option) else { return nil }
            return (
                option, String(argument[argument.index(after: equals)...]),
                argument.utf8.distance(
                    from: argument.startIndex, to: argument.index(after: equals))
            )
        }
        return nil
    }

    private static func values(of options: Set<String>, in arguments: [String]) -> [String] {
        var found: [String] = []
        for (index, argument) in arguments.enumerated() {
            if options.contains(argument), index + 1 < arguments.count { found.append(arguments[index + 1]) }
            if let equals = argument.firstIndex(of: "="), options.contains(String(argument[..<equals])) {
                found.append(String(argument[argument.index(after: equals)...]))
            }
        }
        return found
    }

    /// The byte ranges of `value` that are secret, for `option`.
    private static func secretRanges(option: String, value: String, marked: [String], fields: Set<String>)
        -> [Range<Int>]
    {
        let bytes = Array(value.utf8)
        switch option {
        case "-u", "--user":
            // user:password: the password. A user alone asks for it on the terminal.
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return [] }
            return [(colon + 1)..<bytes.count]
        case "--token":
            return [0..<bytes.count]
        case "-H", "--header":
            guard !value.hasPrefix("@") else { return [] }
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
                // Not a header line: all but its first word may be a credential.
                return bytes.firstIndex(of: UInt8(ascii: " ")).map { [($0 + 1)..<bytes.count] } ?? []
            }
            let name = String(decoding: bytes[..<colon], as: UTF8.self).trimmingCharacters(in: " \t")
            guard Secrets.isSecretHeader(name, marked: Set(marked)) else { return [] }
            var start = colon + 1
            while start < bytes.count, bytes[start] == UInt8(ascii: " ") { start += 1 }
            // `Authorization: Bearer x` keeps its scheme, as -v shows it.
            if name.lowercased().hasSuffix("authorization"),
                let space = bytes[start...].firstIndex(of: UInt8(ascii: " "))
            {
                start = space + 1
            }
            return [start..<bytes.count]
        case "-F", "--form", "--form-string":
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return [] }
            let name = String(decoding: bytes[..<equals], as: UTF8.self)
            let content = bytes[(equals + 1)...]
            // `name=@file` and `name=<file` name a file, not the secret.
            if option != "--form-string", let first = content.first,
                first == UInt8(ascii: "@") || first == UInt8(ascii: "<")
            {
                return []
            }
            guard Secrets.isSecretField(name, marked: fields) else { return [] }
            return [(equals + 1)..<bytes.count]
        default:
            return []
        }
    }

}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
