import FormData

/// Input: a `-F` argument, then optionally a NUL byte and the bytes a `headers=@file` reads.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    // A command-line argument cannot hold a NUL: what follows it is the headers file.
    let argument = String(decoding: bytes[..<split], as: UTF8.self)
    let headerFile = split < bytes.count ? Array(bytes[(split + 1)...]) : []
    _ = try? CurlFormArgument.parse(argument) { _ in headerFile }
    _ = try? CurlFormArgument.parseLiteral(argument)
    return 0
}
