// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for Hoist's parsers of untrusted input; see README.md.
// Built only by run.sh, with `--sanitize=fuzzer --sanitize=address`.
let package = Package(
    name: "hoist-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "hoist", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .executableTarget(name: "FuzzCurlForm", dependencies: [.product(name: "FormData", package: "hoist")]),
        .executableTarget(name: "FuzzJSON", dependencies: [.product(name: "UploadEngine", package: "hoist")]),
        .executableTarget(
            name: "FuzzMultipart",
            dependencies: [
                .product(name: "Receiver", package: "hoist"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // RawProfile.swift lives in the `hoist` executable, which cannot be imported: the target
        // compiles symlinks to it and to KeySuggestion.swift, with stubs for the rest (Stubs.swift).
        .executableTarget(name: "FuzzProfile", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),
        .executableTarget(
            name: "FuzzTus",
            dependencies: [
                .product(name: "FormData", package: "hoist"),
                .product(name: "UploadEngine", package: "hoist"),
                .product(name: "Receiver", package: "hoist"),
            ]
        ),
        .executableTarget(name: "FuzzS3", dependencies: [.product(name: "UploadEngine", package: "hoist")]),
    ],
    swiftLanguageModes: [.v6]
)
