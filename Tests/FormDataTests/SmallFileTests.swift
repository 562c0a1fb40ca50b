import FormData
import TestSupport
import Testing

/// The one reader of small files behind `readSmallFile` and `headers=@file`.
@Suite struct SmallFileTests {
    let dir = TemporaryDirectory()

    @Test func readSmallFileReadsAFileWhole() {
        let path = dir.file("lease-break-time", text: "45\n")
        #expect(readSmallFile(path, limit: 64) == "45\n")
        #expect(readSmallFile(path, limit: 0) == "")
    }

    @Test func readSmallFileStopsPastTheLimit() {
        let size = 300_000
        let path = dir.file("big", text: String(repeating: "x", count: size))
        let text = readSmallFile(path, limit: 10)
        #expect(text.map { $0.utf8.count >= 10 && $0.utf8.count < size } == true)
    }

    @Test func readSmallFileIsNilOnlyWhenTheFileCannotBeOpened() {
        #expect(readSmallFile(dir.path + "/missing", limit: 64) == nil)
        #expect(readSmallFile(dir.directory("sub"), limit: 64) == "")
    }

    @Test func headersFileThatIsADirectoryOrTooLargeIsRefused() {
        let sub = dir.directory("headers.d")
        #expect(
            failure("a=v;headers=@" + sub)?.reason == "cannot read headers file '\(sub)': Is a directory")
        let big = dir.file("big-headers", text: String(repeating: "X-A: 1\n", count: (1 << 20) / 7 + 1))
        #expect(
            failure("a=v;headers=@" + big)?.reason
                == "cannot read headers file '\(big)': larger than 1048576 bytes; is it a headers file?")
    }

    /// The error `CurlFormArgument.parse` throws, reading from disk, or nil.
    func failure(_ argument: String) -> CurlFormSyntaxError? {
        do {
            _ = try CurlFormArgument.parse(argument)
            return nil
        } catch {
            return error
        }
    }
}
