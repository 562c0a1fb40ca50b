/// Input: a profiles.toml file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    _ = try? Profile.parse(text, path: "profiles.toml")
    return 0
}
