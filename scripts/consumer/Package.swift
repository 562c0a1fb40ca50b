// swift-tools-version: 6.1
import PackageDescription

// A package that uses Hoist's library products as another project would
// (CI builds and runs it: .ci/run). A product that only builds inside
// Hoist, or a manifest SwiftPM refuses as a dependency, fails here.
let package = Package(
    name: "HoistConsumer",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "hoist", path: "../..")],
    targets: [
        .executableTarget(
            name: "consumer",
            dependencies: [
                .product(name: "FormData", package: "hoist"),
                .product(name: "UploadEngine", package: "hoist"),
                .product(name: "Receiver", package: "hoist"),
            ])
    ]
)
