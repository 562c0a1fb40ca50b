import FoundationEssentials
import Glibc
import UploadEngine
import UploadPlan

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
        let tokens = ArgumentTokenizer.tokens(arguments)
        let marked = tokens.filter { $0.option.long == "--secret-header" }.map(\.value)
        let markedFields = Set(tokens.filter { $0.option.long == "--secret" }.map(\.value))
        var taken = Set<Int>()
        for token in tokens {
            taken.formUnion([token.optionArgument, token.argument])
            for range in Self.secretRanges(
                option: token.option.long, value: token.value, marked: marked, fields: markedFields)
            {
                add(
                    argument: token.argument,
                    range: (range.lowerBound + token.offset)..<(range.upperBound + token.offset), in: token.value, range
                )
            }
        }
        let end = arguments.firstIndex(of: "--") ?? arguments.count
        for (index, argument) in arguments[..<end].enumerated() where !taken.contains(index) && argument.contains("://")
        {
            for range in Secrets.credentialRanges(inURL: argument) {
                add(argument: index, range: range, in: argument, range)
            }
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

    /// The byte ranges of `value` that are secret, for `option`.
    private static func secretRanges(option: String, value: String, marked: [String], fields: Set<String>)
        -> [Range<Int>]
    {
        let bytes = Array(value.utf8)
        switch option {
        case "--user":
            // user:password: the password. A user alone asks for it on the terminal.
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return [] }
            return [(colon + 1)..<bytes.count]
        case "--token", "--gcs-token":
            return [0..<bytes.count]
        case "--header":
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
        case "--form", "--form-string":
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
            // A target option's URL (`--endpoint`) may hold a password or a signed query.
            guard TargetOption.flagged(option) != nil, value.contains("://") else { return [] }
            return Secrets.credentialRanges(inURL: value)
        }
    }

}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
