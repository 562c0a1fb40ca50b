import FoundationEssentials
import Glibc

/// A `.netrc` file as curl reads it (`--netrc`, `--netrc-file`): `machine`
/// entries with `login` and `password`, a `default` entry for any other host,
/// `macdef` bodies skipped to the next blank line, `#` comments, and
/// double-quoted tokens with backslash escapes.
struct Netrc {
    struct Entry {
        /// nil for the `default` entry.
        var machine: String?
        var login: String?
        var password: String?
    }

    var entries: [Entry] = []

    init(path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = access(path, F_OK) == 0 ? "it cannot be read" : "no such file"
            throw BadInput("netrc file \(path): \(reason)")
        }
        self = Netrc(text: text)
    }

    init(text: String) {
        var tokens = Self.tokens(text)[...]
        var current: Entry?
        while let token = tokens.popFirst() {
            switch token {
            case "machine", "default":
                if let current { entries.append(current) }
                current = Entry(machine: token == "machine" ? tokens.popFirst() : nil)
            case "login": current?.login = tokens.popFirst()
            case "password": current?.password = tokens.popFirst()
            case "account": _ = tokens.popFirst()
            default: break
            }
        }
        if let current { entries.append(current) }
    }

    /// The entry for `host` (any case), or the `default` one; an entry for
    /// the host with another login than `user` (from the URL) is passed over.
    func entry(host: String, user: String? = nil) -> Entry? {
        let matches = entries.filter { $0.machine?.lowercased() == host.lowercased() }
        if let user { return matches.first { $0.login == user } ?? entries.first { $0.machine == nil } }
        return matches.first ?? entries.first { $0.machine == nil }
    }

    /// Whitespace-separated tokens; a `"quoted token"` may hold spaces and
    /// `\"`, `\\`, `\n`, `\r`, `\t`. A `#` at the start of a token comments
    /// out the rest of its line; `macdef NAME` skips to the next blank line.
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var index = 0
        while index < lines.count {
            var line = lines[index][...]
            index += 1
            while true {
                line = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
                guard let first = line.first, first != "#" else { break }
                var token = ""
                if first == "\"" {
                    line = line.dropFirst()
                    while let character = line.popFirst(), character != "\"" {
                        guard character == "\\", let escaped = line.popFirst() else {
                            token.append(character)
                            continue
                        }
                        switch escaped {
                        case "n": token.append("\n")
                        case "r": token.append("\r")
                        case "t": token.append("\t")
                        default: token.append(escaped)
                        }
                    }
                } else {
                    token = String(line.prefix { $0 != " " && $0 != "\t" && $0 != "\r" })
                    line = line.dropFirst(token.count)
                }
                tokens.append(token)
                if token == "macdef", first != "\"" {
                    // The macro's name is on this line; its body runs to a blank line.
                    while index < lines.count, !lines[index].allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) {
                        index += 1
                    }
                    tokens.removeLast()
                    break
                }
            }
        }
        return tokens
    }
}
