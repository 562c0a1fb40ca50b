import Foundation
import TestSupport
import Testing
import UploadEngine
import UploadPlan

@testable import hoist

/// A profile saved from the UI (`S`) keeps an S3 target's options: written
/// by `ProfileWriter`, read back by `Profile.load` as the same target.
@Suite struct S3ProfileWriterTests {
    @Test func anS3TargetSurvivesASaveAndALoad() throws {
        let options = S3TargetOptions(
            endpoint: "http://127.0.0.1:9000", region: "eu-central-1", pathStyle: false, awsProfile: "work",
            partSize: 16 << 20, partConcurrency: 6, storageClass: "STANDARD_IA", acl: "private",
            checksum: .md5)
        let target = Target(url: "s3://my-bucket/nightly/", s3: options)
        let text = Profile.table(name: "backups", target: target, entries: [], origin: nil)
        #expect(text.contains("s3://my-bucket/nightly/"), "\(text)")
        let directory = TemporaryDirectory()
        let path = directory.file("profiles.toml", text: text)
        let loaded = try Profile.load("backups", from: path, environment: [:])
        #expect(loaded.settings.url == "s3://my-bucket/nightly/")
        #expect(loaded.settings.target.s3 == options)
        // A target with no S3 URL writes none of the S3 keys.
        let plain = Profile.table(
            name: "p", target: Target(url: "https://example.com/upload", s3: options), entries: [], origin: nil)
        #expect(!plain.contains("endpoint"))
    }
}

/// "Save as profile" writes the image settings back as the keys it reads.
@Suite struct ImageProfileWriterTests {
    @Test func imageSettingsSurviveASaveAndALoad() throws {
        let images = ImageSettings(quality: 50, maxDimension: 1600, maxBytes: 2 << 20, format: .jpeg)
        let text = Profile.table(
            name: "idcard", target: Target(url: "https://example.com/ocr", images: images), entries: [], origin: nil)
        #expect(text.contains("image_quality = 50\nimage_max_dim = 1600\nimage_max_bytes = \"2M\""), "\(text)")
        let folder = TemporaryDirectory()
        let path = folder.file("profiles.toml", text: text)
        #expect(try Profile.load("idcard", from: path, environment: [:]).settings.target.images == images)
    }
}
