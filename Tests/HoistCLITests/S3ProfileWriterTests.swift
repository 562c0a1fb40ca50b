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
            region: "eu-central-1", pathStyle: false, awsProfile: "work",
            partSize: 16 << 20, partConcurrency: 6, storageClass: "STANDARD_IA", acl: "private",
            checksum: .md5)
        var target = Target(url: "s3://my-bucket/nightly/", s3: options)
        target.endpoint = "http://127.0.0.1:9000"
        let text = Profile.table(name: "backups", target: target, entries: [], origin: nil)
        #expect(text.contains("s3://my-bucket/nightly/"), "\(text)")
        let directory = TemporaryDirectory()
        let path = directory.file("profiles.toml", text: text)
        let loaded = try Profile.load("backups", from: path, environment: [:])
        #expect(loaded.settings.url == "s3://my-bucket/nightly/")
        #expect(loaded.settings.target.s3 == options)
        #expect(loaded.settings.target.endpoint == "http://127.0.0.1:9000")
        // A target with no object store's URL writes none of their keys.
        var plainTarget = Target(url: "https://example.com/upload", s3: options)
        plainTarget.endpoint = "http://127.0.0.1:9000"
        let plain = Profile.table(name: "p", target: plainTarget, entries: [], origin: nil)
        #expect(!plain.contains("endpoint") && !plain.contains("region"), "\(plain)")
    }

    @Test func aGCSTargetSurvivesASaveAndALoad() throws {
        var target = Target(url: "gs://scans/in/", chunkSize: .fixed(1 << 20))
        target.endpoint = "http://127.0.0.1:4443"
        target.contentType = "image/jpeg"
        let text = Profile.table(name: "scans", target: target, entries: [], origin: nil)
        let directory = TemporaryDirectory()
        let path = directory.file("profiles.toml", text: text)
        let loaded = try Profile.load("scans", from: path, environment: [:]).settings.target
        #expect(loaded.url == "gs://scans/in/" && loaded.endpoint == target.endpoint, "\(text)")
        #expect(loaded.contentType == "image/jpeg" && loaded.chunkSize == .fixed(1 << 20), "\(text)")
        #expect(loaded.howSent == "GCS" && loaded.sendsEachFileAlone)
        // `transfer = "gcs"` names the kind as the URL does; without a gs:// URL it is refused.
        let named = directory.file(
            "named.toml", text: "[g]\nurl = \"gs://scans/a.bin\"\ntransfer = \"gcs\"\n")
        #expect(try Profile.load("g", from: named, environment: [:]).settings.target.howSent == "GCS")
        let wrong = directory.file(
            "wrong.toml", text: "[g]\nurl = \"https://example.com/u\"\ntransfer = \"gcs\"\n")
        #expect(throws: (any Error).self) { try Profile.load("g", from: wrong, environment: [:]) }
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
