// swift-tools-version: 6.1
import PackageDescription

// Module layout and dependency direction: see docs/ARCHITECTURE.md.
// FormData <- UploadEngine <- UploadPlan <- TerminalUI <- CursesTerminal <- hoist; Receiver is used by hoist.
// WireRules, the shared header, text, JSON, date and tus rules, is the leaf they all stand on.
let package = Package(
    name: "hoist",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hoist", targets: ["hoist"]),
        .library(name: "FormData", targets: ["FormData"]),
        .library(name: "UploadEngine", targets: ["UploadEngine"]),
        .library(name: "Receiver", targets: ["Receiver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Without its default traits: FullFoundation (a DateFormatter in its form decoder)
        // would link all of Foundation and ICU's 34 MB of data; swift-configuration is not used.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CNcursesw",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]
        ),
        .systemLibrary(name: "CLinux"),
        // libvips is opened with dlopen when an image is first prepared (Sources/CVips/vips.c).
        .target(name: "CVips", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "ImagePrep", dependencies: ["CVips"]),
        // No dependency at all, not even Foundation: pure byte and string rules.
        .target(name: "WireRules"),
        .target(name: "FormData", dependencies: ["WireRules"]),
        .target(
            name: "UploadEngine",
            dependencies: [
                "FormData",
                "WireRules",
                "CLinux",
                "ImagePrep",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA, for GCS service-account keys (a signed JWT).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Receiver",
            dependencies: [
                "WireRules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "UploadPlan", dependencies: ["UploadEngine", "FormData", "WireRules"]),
        .target(name: "TerminalUI", dependencies: ["UploadPlan", "UploadEngine", "FormData"]),
        .target(name: "CursesTerminal", dependencies: ["TerminalUI", "CNcursesw"]),
        .executableTarget(
            name: "hoist",
            dependencies: [
                "FormData", "UploadEngine", "UploadPlan", "Receiver", "TerminalUI", "CursesTerminal", "CLinux",
                "WireRules",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "hoist-bench-encode",
            dependencies: ["FormData"],
            path: "bench/EncodeBench"
        ),
        .executableTarget(
            name: "hoist-bench-floor",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "bench/FloorBench"
        ),
        .executableTarget(
            name: "hoist-bench-images",
            dependencies: ["ImagePrep"],
            path: "bench/ImageBench"
        ),
        .executableTarget(
            name: "hoist-bench-render",
            dependencies: ["TerminalUI", "UploadPlan", "UploadEngine", "FormData"],
            path: "bench/RenderBench"
        ),
        .target(
            name: "TestSupport",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "FormDataTests",
            dependencies: [
                "FormData", "TestSupport",
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ReceiverTests",
            dependencies: [
                "Receiver", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "UploadEngineTests",
            dependencies: [
                "UploadEngine", "FormData", "Receiver", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "HoistCLITests",
            dependencies: [
                "hoist", "Receiver", "TestSupport", "UploadPlan", "TerminalUI", "UploadEngine", "FormData",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "WireRulesTests", dependencies: ["WireRules"]),
        .testTarget(name: "ImagePrepTests", dependencies: ["ImagePrep", "TestSupport"]),
        .testTarget(name: "UploadPlanTests", dependencies: ["UploadPlan", "UploadEngine", "FormData", "TestSupport"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "UploadPlan", "UploadEngine", "FormData"]),
    ],
    swiftLanguageModes: [.v6]
)

// A module's members are seen only in files that import it. Otherwise the full
// Foundation, which a dependency imports (TOMLKit), lends its String methods to
// every file, and one call links all of it with ICU's data (docs/ARCHITECTURE.md).
// No unsafe flags: SwiftPM refuses them in a package used as a versioned
// dependency. The release flags are in scripts/build-release.sh.
for target in package.targets
where [
    "WireRules", "FormData", "ImagePrep", "UploadEngine", "Receiver", "UploadPlan", "TerminalUI", "CursesTerminal",
    "hoist",
]
.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
