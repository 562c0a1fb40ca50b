import Testing

@testable import hoist

/// Inputs the `profile` fuzz target (fuzz/README.md) found to crash, and valid neighbours of them.
@Suite struct FuzzRegressionTests {
    func parse(_ text: String) throws -> [String: RawProfile] {
        try Profile.parse(text, path: "profiles.toml")
    }

    func message(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// toml++ asserted (aborting hoist) on a table header that does not start with a key.
    @Test(arguments: [
        ("[{a}]", "1:2"), ("[[[1]]]", "1:3"), ("[&", "1:2"), (" [=", "1:3"), ("[[ {", "1:4"), ("[\n", "1:2"),
        ("[demo]\nurl = \"u\"\n [{ name = \"X-Api-Key\", value = \"k\" }]\n", "3:3"),
        ("\u{FEFF}[[ {", "1:4"), ("a = \"\"\"\n[\n\"\"\"\n[ 身份", "4:3"),
    ])
    func tableHeaderWithoutKeyIsReported(text: String, position: String) {
        #expect(message(text) == "profiles.toml:\(position): expected a table name (a key) after '['")
    }

    /// toml++ asserted on a date whose `T` is not followed by a digit.
    @Test(arguments: [
        ("a = 1979-05-27T:", "1:16"), ("a = 1979-05-27t:", "1:16"), ("[d]\nx = [1979-05-27T-07:00]", "2:17"),
        ("x = { b = 1979-05-27Tz07:00 }", "1:22"), ("dt = 1979-05-27T\u{FFFD}07:32:00-08:00", "1:17"),
    ])
    func dateWithoutTimeIsReported(text: String, position: String) {
        #expect(message(text) == "profiles.toml:\(position): expected a time (a digit) after the date's 'T'")
    }

    /// toml++ asserted on `}` where an array expects a value.
    @Test(arguments: [("n = [} }", "1:6"), ("n = [1,\n # c\n }]", "3:2"), ("t = { a = [ } }", "1:13")])
    func closingBraceForAnArrayValueIsReported(text: String, position: String) {
        #expect(message(text) == "profiles.toml:\(position): expected a value or ']' in an array, saw '}'")
    }

    /// Keys that look like dates are keys; dates and times in strings and full date-times are left to TOML.
    @Test func dateLikeKeysAndFullDateTimesAreNotRefused() throws {
        #expect(try parse("[1979-05-27Tx]\nurl = \"1979-05-27T:\"\n")["1979-05-27Tx"]?.url == "1979-05-27T:")
        #expect(message("[d]\n1979-05-27Tx.y = 1\n")?.contains("unknown key") == true)
        #expect(!(message("[d]\ntimeout = 1979-05-27T07:32:00Z\n") ?? "").contains("expected a time"))
    }

    /// The check must not refuse brackets inside values, strings or comments.
    @Test func bracketsInValuesStringsAndCommentsAreNotHeaders() throws {
        let profiles = try parse(
            """
            [demo] # [{ a comment
            url = "http://127.0.0.1/[{"
            expect = [
              "a", '[{',
              \"\"\"
            [{ multi-line \\\"\"\" \"\"\",
            ]
            [[demo.fields]]
            name = 'n'
            value = '''
            [[[v'''
            """)
        #expect(profiles["demo"]?.url == "http://127.0.0.1/[{")
        #expect(profiles["demo"]?.options["expect"] == ["a", "[{", "[{ multi-line \"\"\" "])
        #expect(profiles["demo"]?.fields?.first?.value == "[[[v")
        // An array of arrays is TOML; the profile refuses the key, not the brackets.
        #expect(message("[demo]\nx = [\n[{a = 1}],\n]\n")?.contains("unknown key") == true)
        #expect(!(message("[ demo ]\n[ \"demo\".headers ]\n") ?? "").contains("expected a table name"))
    }
}
