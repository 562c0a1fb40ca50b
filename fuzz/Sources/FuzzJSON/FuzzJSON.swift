import UploadEngine

/// Input: a JSON document, as a server's answer body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    // A small limit reaches the depth check with short inputs too.
    _ = try? JSONParser.parse(bytes, maxDepth: 4)
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    // What the UI and the journal write must read back as the same document.
    let written = value.compactJSONBytes
    guard let again = try? JSONParser.parse(written), again == value else {
        fatalError("compact JSON does not read back: \(value.compactJSON)")
    }
    return 0
}
