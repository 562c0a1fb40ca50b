import WireRules

/// `Base64` moved to the leaf module WireRules; the name stays here so code
/// that imports only FormData still builds.
public typealias Base64 = WireRules.Base64
