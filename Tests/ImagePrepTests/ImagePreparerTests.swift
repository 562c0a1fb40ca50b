import Foundation
import Glibc
import ImagePrep
import TestSupport
import Testing

/// Photos made by Pillow with the metadata a phone writes, prepared by
/// libvips, and read back by Pillow.
@Suite struct ImagePreparerTests {
    let folder = TemporaryDirectory()

    func photo(_ name: String, width: Int = 800, height: Int = 600, format: String = "JPEG") async throws -> String {
        let path = folder.path + "/" + name
        try await Photos.make(width: width, height: height, at: path, format: format)
        return path
    }

    func prepared(_ path: String, _ settings: ImageSettings) throws -> PreparedImage {
        let out = folder.directory("out-\(UInt32.random(in: 0...UInt32.max))")
        return try ImagePreparer.prepare(
            path, filename: (path as NSString).lastPathComponent, settings: settings, into: out)
    }

    @Test func aPhoneJPEGIsTurnedUprightScaledAndStrippedButKeepsItsColourProfile() async throws {
        let original = try await photo("身份证 正面.jpg", width: 1600, height: 1200)
        let before = try await Photos.inspect(original)
        #expect(before["orientation"] as? Int == 6 && before["gps"] as? Bool == true)
        let image = try prepared(original, ImageSettings(quality: 50, maxDimension: 1000))
        // Stored 1600×1200 sideways: upright it is 1200×1600, then fitted into 1000 px.
        #expect((image.width, image.height) == (750, 1000))
        #expect(image.originalSize == PixelSize(width: 1200, height: 1600), "upright, as the pixels are shown")
        #expect(ImagePreparer.pixelSize(of: original) == image.originalSize)
        #expect(ImageSettings(maxDimension: 1000).fitted(image.originalSize) == image.size)
        #expect(image.filename == "身份证 正面.jpg" && image.contentType == "image/jpeg")
        let after = try await Photos.inspect(image.path)
        #expect(after["width"] as? Int == 750 && after["height"] as? Int == 1000)
        #expect(after["orientation"] == nil || after["orientation"] as? Int == 1)
        #expect(after["gps"] as? Bool == false)
        #expect(after["makerNote"] as? Bool == false && after["serial"] as? Bool == false)
        #expect(after["make"] == nil || after["make"] is NSNull)
        #expect(after["icc"] as? Bool == true)
        let quality = try #require(after["quality"] as? Int)
        #expect(abs(quality - 50) <= 2, "Pillow estimates quality \(quality)")
        var info = stat()
        stat(image.path, &info)
        #expect(info.st_mode & 0o777 == 0o600 && Int64(info.st_size) == image.bytes)
    }

    @Test func keepingMetadataKeepsTheGPSButStillTurnsThePixelsUpright() async throws {
        let image = try prepared(try await photo("a.jpg"), ImageSettings(quality: 80, keepsMetadata: true))
        let after = try await Photos.inspect(image.path)
        #expect((image.width, image.height) == (600, 800))
        #expect(after["gps"] as? Bool == true)
        #expect(after["orientation"] as? Int == 1, "the kept tag says upright: \(after)")
    }

    @Test func neverEnlarged() async throws {
        let image = try prepared(
            try await photo("small.jpg", width: 300, height: 200), ImageSettings(maxDimension: 4000))
        #expect((image.width, image.height) == (200, 300))
    }

    @Test(arguments: [200_000, 60_000, 15_000])
    func maxBytesFitsTheHighestQualityThenSmallerPixels(_ limit: Int64) async throws {
        let image = try prepared(
            try await photo("big.jpg", width: 2000, height: 1500), ImageSettings(quality: 90, maxBytes: limit))
        #expect(image.bytes <= limit)
        var info = stat()
        stat(image.path, &info)
        #expect(Int64(info.st_size) <= limit)
        if limit == 15_000 { #expect(image.width < 1500, "even quality 40 is too large at full size") }
    }

    @Test func aPNGBecomesAJPEGWhenAsked() async throws {
        let image = try prepared(try await photo("scan.png", format: "PNG"), ImageSettings(format: .jpeg))
        #expect(image.filename == "scan.jpg" && image.contentType == "image/jpeg")
        #expect(try await Photos.inspect(image.path)["format"] as? String == "JPEG")
        let kept = try prepared(try await photo("scan2.png", format: "PNG"), ImageSettings(maxDimension: 400))
        #expect(kept.filename == "scan2.png" && kept.contentType == "image/png")
    }

    @Test func badImagesAreClearErrors() async throws {
        let fake = folder.file("fake.jpg", Array("this is a text file, not a JPEG".utf8))
        #expect(throws: ImagePrepError.self) { try prepared(fake, ImageSettings(quality: 50)) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: try await photo("whole.jpg")))
        let cut = folder.file("cut.jpg", Array(whole.prefix(whole.count / 3)))
        let error = #expect(throws: ImagePrepError.self) { try prepared(cut, ImageSettings(quality: 50)) }
        #expect(error?.description.contains("cut.jpg could not be prepared") == true, "\(String(describing: error))")
        // A 30,000 × 30,000 PNG of a few KB: refused before a pixel is decoded.
        let bomb = folder.path + "/bomb.png"
        let made = try await Subprocess.run(
            "/usr/bin/env",
            ["python3", "-c", "from PIL import Image; Image.new('1', (30000, 30000)).save('\(bomb)')"],
            timeout: .seconds(120))
        #expect(made.status == 0)
        let refused = #expect(throws: ImagePrepError.self) { try prepared(bomb, ImageSettings(maxDimension: 100)) }
        #expect(refused?.description.contains("30000×30000 pixels") == true, "\(String(describing: refused))")
        let small = try await photo("x.jpg")
        let tiny = #expect(throws: ImagePrepError.self) { try prepared(small, ImageSettings(maxBytes: 100)) }
        #expect(tiny?.description.contains("--image-max-bytes") == true, "\(String(describing: tiny))")
    }
}
