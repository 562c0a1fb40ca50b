import Testing

/// What the `hoist` binary is made of.
@Suite struct BinaryTests {
    /// The full Foundation (swift-corelibs-foundation) links ICU's 34 MB of
    /// data and adds about 12 ms to every start (docs/ARCHITECTURE.md): no
    /// code of Hoist's or of a dependency may call into it. `nm -u` lists
    /// what the binary needs from the Swift libraries it was linked against.
    @Test func theBinaryNeedsNothingFromTheFullFoundation() async throws {
        let result = try await run("/usr/bin/nm", ["-u", hoistBinary])
        #expect(result.status == 0, "\(result.stderr)")
        let symbols = result.stdout.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" }
        #expect(symbols.contains { $0.contains("20FoundationEssentials") }, "the check would see Foundation's symbols")
        let full = symbols.filter {
            $0.contains("10Foundation") || $0.contains("FoundationInternationalization")
                || $0.contains("13FoundationXML") || $0.contains("20FoundationNetworking") || $0.hasPrefix("CF")
        }
        #expect(full.isEmpty, "the full Foundation is referenced: \(full.prefix(10))")
    }
}
