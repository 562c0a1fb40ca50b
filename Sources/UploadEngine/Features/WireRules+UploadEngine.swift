import WireRules

// These moved to the leaf module WireRules; the names stay here so code
// that imports only UploadEngine still builds.
public typealias TerminalText = WireRules.TerminalText
public typealias TusMetadata = WireRules.TusMetadata
