import FormData
import Foundation
import Glibc
import TestSupport
import Testing

/// Runs /usr/bin/curl against a one-shot listener on 127.0.0.1 and compares
/// each part it sends with the part Hoist builds from the same argument.
@Suite struct CurlFormArgumentCrossCheckTests {
    /// Headers Hoist deliberately sends differently from curl.
    enum Difference {
        /// curl 7.88's own table is tiny (gif, jpg, jpeg, png, svg, txt, htm, html,
        /// pdf, xml) and it has no default for text parts or stdin with a filename;
        /// Hoist's rule is: a part with a filename always has a type.
        case contentType
        /// curl omits the name parameter for an empty name; Part always has one.
        case name
    }

    struct Case: CustomStringConvertible {
        var option = "-F"
        var argument: String
        var standardInput: [UInt8]? = nil
        var differences: Set<Difference> = []
        var description: String { "\(option) \(argument)" }
    }

    static let curl = "/usr/bin/curl"

    static func cases(dir: String) -> [Case] {
        [
            Case(argument: "greeting=hello"),
            Case(argument: "greeting=  padded value  "),
            Case(argument: #"q="a;b,c \"x\" \\ y\n" "#),
            Case(argument: "note=value;type=text/x-note"),
            Case(argument: "note=v;TYPE=text/plain; charset=utf-8;format=flowed"),
            Case(argument: "t=v;type=a/b ; ;x"),
            Case(argument: "doc=@\(dir)/report.txt"),
            Case(argument: "doc=@\(dir)/report.txt;type=application/x-custom;filename=renamed.bin"),
            Case(argument: #"doc=@"\#(dir)/a,b;c.txt";filename="r\"n.txt""#),
            Case(argument: "doc=@ \(dir)/data.bin "),
            Case(argument: "doc=<\(dir)/report.txt"),
            // curl: application/octet-stream (no json in its table); Hoist: application/json.
            Case(argument: "doc=@\(dir)/x.json", differences: [.contentType]),
            Case(argument: #"f=@\#(dir)/report.txt;headers="X-Trace: 1";headers=X-Side: front"#),
            Case(argument: "f=<\(dir)/report.txt;headers=@\(dir)/hdrs"),
            Case(argument: "t=v;unknown=1;type=text/x"),
            Case(argument: #"t="unterminated"#),
            Case(argument: #"t="abc"def"#),
            // curl: no Content-Type for stdin named "-"; Hoist: application/octet-stream.
            Case(argument: "s=@-", standardInput: Array("from stdin\n".utf8), differences: [.contentType]),
            Case(argument: "s=<-;type=text/x", standardInput: Array("as text".utf8)),
            Case(argument: "s=@-;filename=up.txt", standardInput: Array("renamed".utf8)),
            Case(argument: "t=v;filename=f.txt"),
            // curl: no Content-Type (f.bin is not in its table); Hoist: application/octet-stream.
            Case(argument: "t=v;filename=f.bin", differences: [.contentType]),
            Case(argument: "we\"ird=1"),
            Case(argument: #"t=v;headers="Content-Type: x/y""#),
            Case(argument: #"t=v;type=a/b;headers="Content-Type: x/y""#),
            Case(option: "--form-string", argument: "lit=@not-a-file;type=x/y"),
            Case(argument: "=anon", differences: [.name]),
        ]
    }

    @Test(.enabled(if: access("/usr/bin/curl", X_OK) == 0, "needs /usr/bin/curl"))
    func partsMatchWhatCurlSends() throws {
        let dir = TemporaryDirectory()
        _ = dir.file("report.txt", text: "hello\n")
        _ = dir.file("a,b;c.txt", text: "comma file")
        dir.file("data.bin", [0, 1, 2, 0xFF])
        _ = dir.file("x.json", text: "{}")
        _ = dir.file("hdrs", text: "# comment\nX-A: 1\n  folded\r\n\n#X-Skip: 1\nX-B:   two  \n")
        for check in Self.cases(dir: dir.path) {
            let curlPart = try Self.curlPart(for: check, dir: dir)
            let hoistPart = try Self.hoistPart(for: check, dir: dir)
            #expect(curlPart.body == hoistPart.body, "\(check)")
            #expect(curlPart.filename == hoistPart.filename, "\(check)")
            #expect(Self.extraHeaders(curlPart) == Self.extraHeaders(hoistPart), "\(check)")
            if !check.differences.contains(.name) {
                #expect(curlPart.name == hoistPart.name, "\(check)")
            }
            if !check.differences.contains(.contentType) {
                #expect(curlPart.contentType.map(Self.trimmed) == hoistPart.contentType.map(Self.trimmed), "\(check)")
            }
        }
    }

    /// The differences listed above are real: this pins what curl 7.88 sends.
    @Test(.enabled(if: access("/usr/bin/curl", X_OK) == 0, "needs /usr/bin/curl"))
    func documentedDifferencesAreWhatCurlDoes() throws {
        let dir = TemporaryDirectory()
        _ = dir.file("x.json", text: "{}")
        let json = try Self.curlPart(for: Case(argument: "f=@\(dir.path)/x.json"), dir: dir)
        #expect(json.contentType == "application/octet-stream")
        let stdin = try Self.curlPart(for: Case(argument: "f=@-", standardInput: [0x41]), dir: dir)
        #expect(stdin.filename == "-")
        #expect(stdin.contentType == nil)
        let anonymous = try Self.curlPart(for: Case(argument: "=anon"), dir: dir)
        #expect(anonymous.header("Content-Disposition") == "form-data")
        #expect(try Self.hoistPart(for: Case(argument: "=anon"), dir: dir).name == "")
    }

    static func extraHeaders(_ part: ParsedPart) -> [[String]] {
        part.headers
            .filter { !["content-disposition", "content-type"].contains($0.name.lowercased()) }
            .map { [$0.name.lowercased(), trimmed($0.value)] }
    }

    static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces)
    }

    /// Hoist's part for the argument, parsed back. Standard input is replaced by
    /// a stream from a file holding the same bytes.
    static func hoistPart(for check: Case, dir: TemporaryDirectory) throws -> ParsedPart {
        let argument =
            check.option == "-F"
            ? try CurlFormArgument.parse(check.argument) : try CurlFormArgument.parseLiteral(check.argument)
        var part = argument.part()
        if case .stream(.standardInput) = part.content {
            part.content = .stream(.path(dir.file("stdin-copy", check.standardInput ?? [])))
        }
        let form = MultipartForm(parts: [part])
        let parts = try parseMultipart(try form.makeBody().bytes(), boundary: form.boundary.value)
        try #require(parts.count == 1)
        return parts[0]
    }

    /// The one part curl sends for the argument.
    static func curlPart(for check: Case, dir: TemporaryDirectory) throws -> ParsedPart {
        let listener = try OneShotListener()
        let input = check.standardInput ?? []
        let process = try Subprocess(
            curl,
            [
                "-s", "-o", "/dev/null", "-H", "Expect:", check.option, check.argument,
                "http://127.0.0.1:\(listener.port)/",
            ],
            directory: dir.path, timeout: .seconds(60), input: { $0.write(Data(input)) })
        let request = try listener.receiveRequest()
        let finished = process.wait()
        #expect(finished.status == 0, "curl failed for \(check)")
        let (headers, body) = try splitRequest(request)
        let contentType = try #require(headers["content-type"], "\(check)")
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        let parts = try parseMultipart(body, boundary: boundary)
        try #require(parts.count == 1, "\(check)")
        return parts[0]
    }

    /// Splits a raw HTTP request into lower-cased headers and its body.
    static func splitRequest(_ request: [UInt8]) throws -> (headers: [String: String], body: [UInt8]) {
        let separator = Array("\r\n\r\n".utf8)
        let end = try #require(request.firstRange(of: separator))
        var headers: [String: String] = [:]
        for line in String(decoding: request[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            .dropFirst()
        {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = trimmed(String(line[line.index(after: colon)...]))
        }
        return (headers, Array(request[end.upperBound...]))
    }
}

/// A TCP listener on 127.0.0.1 with an ephemeral port that accepts one
/// connection, reads one request with a Content-Length, answers 200 and closes.
final class OneShotListener {
    let socketFD: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, listen(fd, 1) == 0, named == 0 else {
            close(fd)
            throw ListenerError(errno: errno)
        }
        socketFD = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    struct ListenerError: Error {
        var errno: Int32
    }

    deinit {
        close(socketFD)
    }

    /// Waits at most `timeout` milliseconds for each step.
    func receiveRequest(timeout: Int32 = 5000) throws -> [UInt8] {
        try #require(waitReadable(socketFD, timeout: timeout), "curl did not connect")
        let connection = accept(socketFD, nil, nil)
        try #require(connection >= 0)
        defer { close(connection) }
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !isComplete(request) {
            try #require(waitReadable(connection, timeout: timeout), "request did not arrive")
            let count = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            try #require(count > 0, "connection closed early")
            request += chunk[0..<count]
        }
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        return request
    }

    private func isComplete(_ request: [UInt8]) -> Bool {
        guard let end = request.firstRange(of: Array("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: request[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return true }
        return request.count - end.upperBound >= length
    }

    private func waitReadable(_ fd: Int32, timeout: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, timeout) == 1
    }
}
