import Glibc

/// Content types by file extension: a built-in table merged with
/// `/etc/mime.types`. The built-in table wins, so results are the same on
/// every machine for common types; the system file fills in the rest.
public enum MIMETypes {
    public static let fallback = "application/octet-stream"

    /// The type for a filename or path, from its last extension; `nil` when unknown.
    public static func lookup(filename: String) -> String? {
        let name = baseName(of: filename)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        guard !ext.isEmpty else { return nil }
        // The system file is read only for a type the built-in table lacks.
        return builtIn[ext] ?? system[ext]
    }

    /// The type for a filename, or `application/octet-stream`.
    public static func type(forFilename filename: String) -> String {
        lookup(filename: filename) ?? fallback
    }

    /// `/etc/mime.types`, loaded once, when first needed.
    static let system = systemTable(path: "/etc/mime.types")

    /// Parses a mime.types file: `type ext ext ...` per line, `#` starts a comment.
    /// Works on bytes: splitting the file by Character is slow enough to
    /// show in the start-up of a one-file `hoist send`.
    static func systemTable(path: String) -> [String: String] {
        guard let text = readSmallFile(path, limit: 4 << 20) else { return [:] }
        var table: [String: String] = [:]
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            let content = line.prefix { $0 != UInt8(ascii: "#") }
            let words = content.split {
                $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r")
            }
            guard words.count >= 2, words[0].contains(UInt8(ascii: "/")) else { continue }
            let type = String(decoding: words[0], as: UTF8.self)
            for word in words.dropFirst() {
                let ext = String(decoding: word.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
                if table[ext] == nil { table[ext] = type }
            }
        }
        return table
    }

    /// Hoist's own table. Kept in code so that a machine without
    /// /etc/mime.types (or with an odd one) still sends the right types.
    public static let builtIn: [String: String] = [
        // images
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "png": "image/png",
        "gif": "image/gif", "webp": "image/webp", "bmp": "image/bmp", "tif": "image/tiff",
        "tiff": "image/tiff", "svg": "image/svg+xml", "svgz": "image/svg+xml", "ico": "image/vnd.microsoft.icon",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif", "jxl": "image/jxl",
        "psd": "image/vnd.adobe.photoshop", "dng": "image/x-adobe-dng",
        // video
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "3gp": "video/3gpp", "flv": "video/x-flv", "ts": "video/mp2t", "ogv": "video/ogg",
        // audio
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "mid": "audio/midi", "midi": "audio/midi", "weba": "audio/webm", "amr": "audio/amr",
        // documents
        "pdf": "application/pdf", "rtf": "application/rtf", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        "epub": "application/epub+zip", "ps": "application/postscript", "eps": "application/postscript",
        // archives and packages
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "zst": "application/zstd",
        "7z": "application/x-7z-compressed", "rar": "application/vnd.rar", "tar": "application/x-tar",
        "jar": "application/java-archive", "apk": "application/vnd.android.package-archive",
        "deb": "application/vnd.debian.binary-package", "rpm": "application/x-rpm",
        "dmg": "application/x-apple-diskimage", "iso": "application/x-iso9660-image",
        // text and data
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "markdown": "text/markdown", "csv": "text/csv", "tsv": "text/tab-separated-values",
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript",
        "mjs": "text/javascript", "xml": "application/xml", "json": "application/json",
        "jsonld": "application/ld+json", "geojson": "application/geo+json", "ndjson": "application/x-ndjson",
        "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml",
        "ics": "text/calendar", "vcf": "text/vcard", "srt": "application/x-subrip", "vtt": "text/vtt",
        "sql": "application/sql", "graphql": "application/graphql",
        // code and binaries
        "wasm": "application/wasm", "bin": "application/octet-stream",
        "exe": "application/vnd.microsoft.portable-executable",
        "sh": "application/x-sh", "py": "text/x-python", "swift": "text/x-swift", "c": "text/x-c",
        "h": "text/x-c", "go": "text/x-go", "rs": "text/x-rust", "java": "text/x-java",
        // fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        // keys and certificates
        "pem": "application/x-pem-file", "crt": "application/x-x509-ca-cert", "cer": "application/pkix-cert",
        "der": "application/x-x509-ca-cert", "p12": "application/x-pkcs12", "pfx": "application/x-pkcs12",
    ]
}
