// What RawProfile.swift needs from the rest of the `hoist` target, which is not compiled here.

/// `RawProfile.swift` extends it with `parse(_:path:)`; the real one lives in Profile.swift.
struct Profile {}

/// As in Hoist.swift.
struct BadInput: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
